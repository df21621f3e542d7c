// Hostile input at the edge (issue 10 point 3-5): every public and management route with NUL, lone
// surrogates, malformed percent-encoding and deep JSON answers 400 invalid_request, never 500, and
// logs no error. Also: 415 for non-JSON management writes, `__proto__` refused like any unknown key.
// Covers MAPI-003 (closed bodies) and the edge rules of docs/edge-validation.md.
import { deepEqual, equal, ok } from "node:assert/strict";
import { SCOPES } from "../../core/access/scopes.ts";
import { insertCredential } from "../../core/credentials/credential_store.ts";
import { OPERATIONS } from "../../core/manage/contract/mod.ts";
import { manifest } from "../../routes.gen.ts";
import { openPublicWorld, type PublicWorld } from "../public/helpers.ts";

const BASE = "http://localhost/api/manage/v1";

/** Percent-encoded bad values: NUL, an encoded lone surrogate (not UTF-8), overlong NUL, a bare %. */
const BAD_URL_VALUES = ["%00", "a%00b", "%ED%A0%80", "%C0%80", "%E0%A4", "%"];

/** Query names the public and management routes read. */
const QUERY_NAMES = [
  "filter[category]",
  "filter[title][contains]",
  "tag",
  "q",
  "locale",
  "cursor",
  "limit",
  "sort",
  "fields",
  "include",
  "since",
  "model_id",
  "state",
  "kind",
];

const DEEP = "[".repeat(100_000) + "]".repeat(100_000);

async function world(): Promise<{ w: PublicWorld; secret: string }> {
  const w = await openPublicWorld();
  const { secret } = await insertCredential(w.services.db, w.clock, {
    siteId: w.siteId,
    creatorId: w.adminId,
    name: "hostile",
    scopes: [...SCOPES],
    models: null,
  });
  return { w, secret };
}

function assertNoErrorLogs(w: PublicWorld, what: string) {
  const errors = w.logs.filter((l) => l.level === "error");
  deepEqual(errors, [], `${what} logged an error`);
}

async function expectRefused(response: Response, what: string, status = 400) {
  const text = await response.text();
  equal(response.status, status, `${what}: ${text.slice(0, 300)}`);
  if (status === 400) {
    equal(JSON.parse(text).error.code, "invalid_request", what);
  }
}

Deno.test("every public route refuses NUL, lone surrogates and bad percent-encoding in path and query with 400 invalid_request, never 500", async () => {
  const { w } = await world();
  try {
    const publicPatterns = manifest.routes.map((r) => r.pattern).filter((p) =>
      p.startsWith("/v1") || p === "/health"
    );
    ok(publicPatterns.length >= 10, "the walk found the public routes");
    const fill = (pattern: string, value: string) =>
      pattern.replace(/:model\b/, "posts").replace(/:[a-z]+/g, value);
    for (const pattern of [...publicPatterns, "/_static/x"]) {
      for (const bad of BAD_URL_VALUES) {
        if (
          fill(pattern, "x") !== fill(pattern, "y") || pattern === "/_static/x"
        ) {
          const path = pattern === "/_static/x"
            ? `/_static/${bad}`
            : fill(pattern, `a${bad}b`);
          await expectRefused(await w.get(path), `GET ${path}`);
        }
        if (pattern.includes(":model")) {
          const path = pattern.replace(":model", bad).replace(/:[a-z]+/g, "x");
          await expectRefused(await w.get(path), `GET ${path}`);
        }
        for (const name of QUERY_NAMES) {
          const path = `${fill(pattern, "hello-world")}?${
            encodeURIComponent(name)
          }=${bad}`;
          await expectRefused(await w.get(path), `GET ${path}`);
        }
        const badName = `${fill(pattern, "x")}?${bad}=1`;
        await expectRefused(await w.get(badName), `GET ${badName}`);
      }
    }
    // The inputs the attack report named, as sent.
    for (
      const path of [
        "/v1/posts?filter[category]=%00",
        "/v1/posts?tag=%00",
        "/v1/posts/a%00b",
        "/_static/%00",
      ]
    ) {
      const answer = await w.get(path);
      equal(answer.status, 400, path);
      const body = await answer.json();
      equal(body.error.code, "invalid_request");
      ok(
        body.error.issues[0].path.startsWith(
          path.includes("?") ? "query." : "path",
        ),
      );
    }
    assertNoErrorLogs(w, "the public walk");
  } finally {
    await w.close();
  }
});

Deno.test("every management route refuses bad text in path, query and JSON body, and JSON nested 100,000 deep, with 400 invalid_request", async () => {
  const { w, secret } = await world();
  try {
    const headers = {
      authorization: `Bearer ${secret}`,
      "content-type": "application/json",
      "idempotency-key": "hostile-1",
    };
    const id = crypto.randomUUID();
    // The walk sends thousands of requests; moving the clock keeps it under the rate limit.
    let sent = 0;
    const request = (url: string, init: RequestInit) => {
      if (++sent % 100 === 0) w.clock.advance(61_000);
      return w.app.request(url, init);
    };
    for (const op of OPERATIONS) {
      const path = op.path.replace(/\{[A-Za-z]+\}/g, id);
      const what = `${op.method} ${op.path}`;
      for (const bad of BAD_URL_VALUES) {
        if (op.path.includes("{")) {
          const badPath = op.path.replace(/\{[A-Za-z]+\}/, `a${bad}b`)
            .replace(/\{[A-Za-z]+\}/g, id);
          await expectRefused(
            await request(`${BASE}${badPath}`, {
              method: op.method,
              headers,
            }),
            `${what} path ${bad}`,
          );
        }
        for (const name of [...Object.keys(op.query.shape), "limit"]) {
          await expectRefused(
            await request(`${BASE}${path}?${name}=${bad}`, {
              method: op.method,
              headers,
            }),
            `${what} query ${name}=${bad}`,
          );
        }
      }
      if (op.body === null) continue;
      const keys = Object.keys(op.body.shape);
      if (op.multipart) {
        for (const key of [...keys, "file name"]) {
          const form = new FormData();
          form.set(
            op.multipart.file,
            new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])]),
            key === "file name" ? "a\u0000b.png" : "a.png",
          );
          if (key !== "file name") form.set(key, "a\u0000b");
          await expectRefused(
            await request(`${BASE}${path}`, {
              method: op.method,
              headers: {
                authorization: headers.authorization,
                "idempotency-key": headers["idempotency-key"],
              },
              body: form,
            }),
            `${what} multipart NUL in ${key}`,
          );
        }
        continue;
      }
      const bodies: [string, string][] = [
        ["deep", `{"a":${DEEP}}`],
        ["65 deep", `{"a":${"[".repeat(64)}${"]".repeat(64)}}`],
      ];
      for (const key of keys) {
        bodies.push([`NUL in ${key}`, JSON.stringify({ [key]: "a\u0000b" })]);
        bodies.push([`lone surrogate in ${key}`, `{"${key}":"a\\ud800b"}`]);
        bodies.push([
          `nested NUL in ${key}`,
          JSON.stringify({ [key]: { x: ["ok", "a\u0000"] } }),
        ]);
        bodies.push([`NUL key in ${key}`, `{"${key}":{"a\\u0000":1}}`]);
      }
      for (const [name, body] of bodies) {
        await expectRefused(
          await request(`${BASE}${path}`, {
            method: op.method,
            headers,
            body,
          }),
          `${what} body ${name}`,
        );
      }
    }
    assertNoErrorLogs(w, "the management walk");
  } finally {
    await w.close();
  }
});

Deno.test("JSON nesting: 64 levels pass the edge, 65 are refused before parsing", async () => {
  const { w, secret } = await world();
  try {
    const send = (depth: number) =>
      w.app.request(`${BASE}/entries`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${secret}`,
          "content-type": "application/json",
          "idempotency-key": `depth-${depth}`,
        },
        // The outer object is level 1.
        body: `{"note":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`,
      });
    const last = await (await send(64)).json();
    equal(last.error.code, "invalid_request");
    ok(
      last.error.issues.some((i: { path: string }) => i.path === "body.note"),
      "64 levels reach the closed schema",
    );
    const first = await (await send(65)).json();
    equal(first.error.code, "invalid_request");
    equal(first.error.message, "Request body is nested deeper than 64 levels");
  } finally {
    await w.close();
  }
});

Deno.test("a NUL or lone surrogate in an entry field value is refused naming the field, and nothing is written", async () => {
  const { w, secret } = await world();
  try {
    const modelId = await w.modelId("posts");
    const before = await w.services.db.selectFrom("entries").select((e) =>
      e.fn.countAll<number>().as("n")
    ).executeTakeFirstOrThrow();
    for (
      const [title, problem] of [
        ["a\u0000b", "contains NUL"],
        ["a\ud800b", "contains a lone surrogate"],
      ]
    ) {
      const answer = await w.app.request(`${BASE}/entries`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${secret}`,
          "content-type": "application/json",
          "idempotency-key": `nul-${problem}`,
        },
        body: JSON.stringify({
          model_id: modelId,
          locale: "en",
          slug: "hostile",
          fields: { title },
        }),
      });
      equal(answer.status, 400);
      const { error } = await answer.json();
      equal(error.code, "invalid_request");
      deepEqual(error.issues, [{
        path: "body.fields.title",
        message: problem,
      }]);
    }
    const after = await w.services.db.selectFrom("entries").select((e) =>
      e.fn.countAll<number>().as("n")
    ).executeTakeFirstOrThrow();
    equal(after.n, before.n);
    assertNoErrorLogs(w, "field values");
  } finally {
    await w.close();
  }
});

Deno.test("management writes answer 415 for a body that is not application/json, writing nothing; GETs and body-less writes need no type", async () => {
  const { w, secret } = await world();
  try {
    const modelId = await w.modelId("posts");
    const body = JSON.stringify({
      model_id: modelId,
      locale: "en",
      slug: "typed",
      fields: { title: "Typed" },
    });
    const types: (string | null)[] = [
      null,
      "text/plain",
      "application/x-www-form-urlencoded",
      "application/xml",
      "multipart/form-data; boundary=x",
      "application/jsonx",
    ];
    for (const type of types) {
      const headers: Record<string, string> = {
        authorization: `Bearer ${secret}`,
        "idempotency-key": `type-${type}`,
      };
      if (type) headers["content-type"] = type;
      const request = new Request(`${BASE}/entries`, {
        method: "POST",
        headers,
        body,
      });
      // fetch adds text/plain for a string body; the no-type case must really send none.
      if (!type) request.headers.delete("content-type");
      const answer = await w.app.request(request);
      equal(answer.status, 415, String(type));
      const { error } = await answer.json();
      equal(error.code, "unsupported_content_type");
      deepEqual(error.accepted, ["application/json"]);
    }
    const written = await w.services.db.selectFrom("entries").select("id")
      .where("slug", "=", "typed").execute();
    deepEqual(written, [], "nothing was written");
    const accepted = await w.app.request(`${BASE}/entries`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${secret}`,
        "idempotency-key": "type-json",
        "content-type": "application/json; charset=utf-8",
      },
      body,
    });
    equal(accepted.status, 201, await accepted.clone().text());
    const read = await w.app.request(`${BASE}/site`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    equal(read.status, 200);
  } finally {
    await w.close();
  }
});

Deno.test("__proto__ in fields is refused unknown_field like any unknown field; elsewhere it is an unknown key (invalid_request)", async () => {
  const { w, secret } = await world();
  try {
    const modelId = await w.modelId("posts");
    const headers = (key: string) => ({
      authorization: `Bearer ${secret}`,
      "content-type": "application/json",
      "idempotency-key": key,
    });
    const create = await w.app.request(`${BASE}/entries`, {
      method: "POST",
      headers: headers("proto-1"),
      body:
        `{"model_id":"${modelId}","locale":"en","slug":"proto","fields":{"title":"T","__proto__":{"x":1}}}`,
    });
    equal(create.status, 422, await create.clone().text());
    const { error } = await create.json();
    equal(error.code, "field_validation_failed");
    ok(
      JSON.stringify(error).includes('"unknown_field"') &&
        JSON.stringify(error).includes("__proto__"),
      JSON.stringify(error),
    );
    const none = await w.services.db.selectFrom("entries").select("id").where(
      "slug",
      "=",
      "proto",
    ).execute();
    deepEqual(none, []);

    // Records and loose objects elsewhere (settings documents, role permissions, menus).
    for (
      const [method, path, body] of [
        [
          "PUT",
          "/settings/language-fallback",
          `{"expected_revision":0,"document":{"chains":{"__proto__":["en"]}}}`,
        ],
        [
          "POST",
          "/roles",
          `{"name":"P","permissions":{"system":[],"models":{"__proto__":["read"]}}}`,
        ],
        ["POST", "/entries", `{"__proto__":{"model_id":"x"}}`],
      ] as const
    ) {
      const answer = await w.app.request(`${BASE}${path}`, {
        method,
        headers: headers(`proto-${path}`),
        body,
      });
      equal(answer.status, 400, `${path}: ${await answer.clone().text()}`);
      const refused = await answer.json();
      equal(refused.error.code, "invalid_request");
      ok(refused.error.issues[0].path.endsWith("__proto__"));
    }
  } finally {
    await w.close();
  }
});
