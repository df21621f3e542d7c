// The test-only answer check (STAVE_CHECK_ANSWERS) turns an answer its OpenAPI document does not
// describe into a 500 answer_contract_violation, and lets described ones through (PUB-043, MAPI-001).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { Hono } from "hono";
import {
  ANSWER_CONTRACT_VIOLATION,
  answerCheck,
  answerCheckOn,
} from "../../core/openapi/answer_check.ts";
import type { AppEnv } from "../../core/web/env.ts";
import type { LogEntry } from "../../core/services.ts";
import publicDocument from "../../generated/openapi-public-v1.json" with {
  type: "json",
};
import managementDocument from "../../generated/openapi-v1.json" with {
  type: "json",
};

const ID = "0190e4a2-7c1d-7000-8000-000000000001";
const item = {
  id: ID,
  slug: "hello",
  locale: "en",
  model: "posts",
  version: 1,
  published_at: "2026-11-23T10:00:00.000Z",
  fields: { title: "Hello" },
  relations: { author: null, tags: [] },
};
const contracts = { page: { served: 1 } };

/** Stand-in routes on the real patterns, answering what each case needs, behind the real check. */
function checkedApp(logs: LogEntry[]) {
  const app = new Hono<AppEnv>();
  app.use(
    "*",
    answerCheck([
      { base: "/v1", document: publicDocument },
      { base: "/api/manage/v1", document: managementDocument },
    ], (entry) => logs.push(entry)),
  );
  app.get("/v1/_comments", (c) => c.json({ anything: true }));
  app.get("/v1/:model/:slug", (c) => {
    switch (c.req.param("slug")) {
      case "wrong-type":
        return c.json({ data: { ...item, version: "1" }, contracts });
      case "teapot":
        return c.json({ error: { code: "teapot", message: "No" } }, 418);
      case "html":
        return c.html("<p>Hello</p>");
      case "gone":
        return c.json({ error: { code: "not_found", message: "Gone" } }, 404);
      default:
        return c.json({ data: item, contracts });
    }
  });
  app.get("/v1/:model", (c) => c.body(null, 304));
  app.get("/api/manage/v1/site", (c) => c.json({ site: 1 }));
  return app;
}

Deno.test("answer check: a documented answer passes unchanged (PUB-043)", async () => {
  const logs: LogEntry[] = [];
  const app = checkedApp(logs);
  const ok200 = await app.request("/v1/posts/hello");
  equal(ok200.status, 200);
  deepEqual((await ok200.json()).data, item);
  const missing = await app.request("/v1/posts/gone");
  equal(missing.status, 404);
  equal((await missing.json()).error.code, "not_found");
  equal((await app.request("/v1/posts")).status, 304);
  // No document describes /v1/_comments: skipped by rule, not read as a model list.
  equal((await app.request("/v1/_comments")).status, 200);
  deepEqual(logs, []);
});

Deno.test("answer check: a field of the wrong type becomes a 500 naming the path, status and schema error (PUB-043)", async () => {
  const logs: LogEntry[] = [];
  const answer = await checkedApp(logs).request("/v1/posts/wrong-type");
  equal(answer.status, 500);
  const { error } = await answer.json();
  equal(error.code, ANSWER_CONTRACT_VIOLATION);
  equal(error.path, "/v1/posts/wrong-type");
  equal(error.status, 200);
  match(error.message, /GET \/v1\/\{model\}\/\{slug\} answered 200/);
  match(error.message, /\/data\/version must be integer/);
  equal(logs.length, 1);
  equal(logs[0].level, "error");
  equal(logs[0].msg, ANSWER_CONTRACT_VIOLATION);
});

Deno.test("answer check: an undocumented status, an HTML body where JSON is documented and a wrong Management API answer are violations (PUB-043, MAPI-001)", async () => {
  const logs: LogEntry[] = [];
  const app = checkedApp(logs);
  const teapot = await app.request("/v1/posts/teapot");
  equal(teapot.status, 500);
  const teapotError = (await teapot.json()).error;
  equal(teapotError.status, 418);
  match(teapotError.message, /status is not documented/);
  const html = await app.request("/v1/posts/html");
  equal(html.status, 500);
  match(
    (await html.json()).error.message,
    /lists application\/json, the answer is "text\/html/,
  );
  const site = await app.request("/api/manage/v1/site");
  equal(site.status, 500);
  match(
    (await site.json()).error.message,
    /GET \/api\/manage\/v1\/site answered 200/,
  );
  equal(logs.length, 3);
});

Deno.test("answer check: on only with STAVE_CHECK_ANSWERS=1, and never where ENVIRONMENT=production", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  ok(answerCheckOn(env({ STAVE_CHECK_ANSWERS: "1" })));
  ok(!answerCheckOn(env({})));
  ok(!answerCheckOn(env({ STAVE_CHECK_ANSWERS: "true" })));
  ok(
    !answerCheckOn(
      env({ STAVE_CHECK_ANSWERS: "1", ENVIRONMENT: "production" }),
    ),
  );
});
