// handleError(): a lost database connection answers 503 with Retry-After and the path's code; other
// failures stay 500 and leak nothing.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { Hono } from "hono";
import type { LogEntry } from "../services.ts";
import type { AppEnv } from "./env.ts";
import { DATABASE_RETRY_AFTER_SECONDS, handleError } from "./errors.ts";

function appThrowing(error: unknown) {
  const logs: LogEntry[] = [];
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set("log", (entry) => logs.push(entry));
    const path = c.req.path;
    c.set(
      "responseKind",
      path.startsWith("/admin")
        ? "html"
        : path.startsWith("/v1")
        ? "text"
        : "json",
    );
    await next();
  });
  app.all("*", () => {
    throw error;
  });
  app.onError((e, c) => handleError(e, c));
  return { app, logs };
}

const terminated = Object.assign(
  new Error("terminating connection due to administrator command"),
  { code: "57P01", severity: "FATAL" },
);

Deno.test("handleError(): a lost database connection answers 503 temporary_failure with Retry-After and no-store, logged once as a warning", async () => {
  for (
    const error of [
      terminated,
      new Error("Connection terminated unexpectedly"),
      new Error(
        "Client has encountered a connection error and is not queryable",
      ),
    ]
  ) {
    const { app, logs } = appThrowing(error);
    for (const path of ["/api/manage/v1/entries", "/v1/posts/a-slug"]) {
      const res = await app.request(path, { method: "POST" });
      equal(res.status, 503, path);
      equal(
        res.headers.get("retry-after"),
        String(DATABASE_RETRY_AFTER_SECONDS),
      );
      equal(res.headers.get("cache-control"), "no-store");
      const body = await res.json();
      equal(body.error.code, "temporary_failure");
      // The driver's message stays in the log line, never in the answer.
      ok(!JSON.stringify(body).includes("administrator"));
    }
    equal(logs.length, 2);
    deepEqual(logs.map((l) => [l.level, l.msg]), [
      ["warn", "database unavailable"],
      ["warn", "database unavailable"],
    ]);
    match(String(logs[0].error), /terminat|connection error/);
  }
});

Deno.test("handleError(): on /v1/_sync and /v1/_search a lost connection is the contract's own 503 code; an admin page is the 503 error page", async () => {
  const { app } = appThrowing(terminated);
  const sync = await app.request("/v1/_sync");
  equal(sync.status, 503);
  equal((await sync.json()).error.code, "sync_dependency_unavailable");
  equal(sync.headers.get("retry-after"), "5");
  const search = await app.request("/v1/_search/suggest?q=a");
  equal(search.status, 503);
  equal((await search.json()).error.code, "search_unavailable");
  equal(search.headers.get("retry-after"), "5");
  const page = await app.request("/admin/entries");
  equal(page.status, 503);
  equal(page.headers.get("retry-after"), "2");
  match(await page.text(), /<code>temporary_failure<\/code>/);
});

Deno.test("handleError(): a statement's own error is still 500 internal_error, logged as an error", async () => {
  const { app, logs } = appThrowing(
    Object.assign(new Error('duplicate key value violates "x"'), {
      code: "23505",
    }),
  );
  const res = await app.request("/api/manage/v1/entries");
  equal(res.status, 500);
  equal(res.headers.get("retry-after"), null);
  deepEqual(await res.json(), {
    error: { code: "internal_error", message: "Internal error" },
  });
  deepEqual(logs.map((l) => [l.level, l.msg]), [["error", "unhandled"]]);
});
