// The SDK against a real local HTTP server with an injected clock and sleep: every client rule of spec 1 part 7 (PLG-029, PLG-034).
import { deepEqual, equal, ok, rejects, throws } from "node:assert/strict";
import {
  assertOutcomesTable,
  checkServiceUrl,
  PluginClient,
  type PluginClientOptions,
  ProtocolMismatchError,
} from "./mod.ts";

const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

interface Seen {
  method: string;
  path: string;
  auth: string | null;
  key: string | null;
  body: string;
}

/** A local service whose answers are scripted per request, recording what it received. */
function scriptedService(
  script: (n: number, req: Request) => Response | Promise<Response>,
) {
  const seen: Seen[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (req) => {
      const url = new URL(req.url);
      seen.push({
        method: req.method,
        path: url.pathname,
        auth: req.headers.get("authorization"),
        key: req.headers.get("idempotency-key"),
        body: await req.text(),
      });
      return script(seen.length, req);
    },
  );
  const origin = `http://127.0.0.1:${server.addr.port}`;
  return { origin, seen, close: () => server.shutdown() };
}

function outcome(
  status: number,
  code: string,
  retry: boolean,
  headers: Record<string, string> = {},
  extra: Record<string, unknown> = {},
): Response {
  return Response.json({ outcome: { code, message: "m", retry }, ...extra }, {
    status,
    headers,
  });
}

/** A client whose time only moves when it sleeps; records every sleep. */
function clientFor(origin: string, extra: Partial<PluginClientOptions> = {}) {
  const clock = { now: 1_800_000_000_000 };
  const sleeps: number[] = [];
  let token = "svp_" + "a".repeat(43);
  const reads: string[] = [];
  const client = new PluginClient({
    serviceUrl: origin,
    servicePolicy: { development: true, devOrigins: [origin] },
    readToken: () => {
      reads.push(token);
      return token;
    },
    now: () => clock.now,
    sleep: (ms) => {
      sleeps.push(ms);
      clock.now += ms;
      return Promise.resolve();
    },
    random: () => 0.5,
    ...extra,
  });
  return {
    client,
    clock,
    sleeps,
    reads,
    setToken(value: string) {
      token = value;
    },
  };
}

const transition = {
  method: "POST" as const,
  path: "/content/c1/transitions/published",
  json: { kind: "publish", expected_workflow_revision: 3, delegation_id: "d1" },
  idempotencyKey: "sched:i1:s1:r1",
};

Deno.test("PluginClient.assertProtocol() accepts the service's published table and names every difference (PLG-034)", async () => {
  const published = JSON.parse(
    await Deno.readTextFile(`${root}/generated/protocol-v1.schema.json`),
  );
  let doc: unknown = published;
  const service = scriptedService(() => Response.json(doc));
  try {
    const { client } = clientFor(service.origin);
    await client.assertProtocol();
    equal(service.seen[0].path, "/api/plugin-schemas/protocol-v1.schema.json");
    const flipped = structuredClone(published);
    flipped.outcomes.temporary_failure.retry = false;
    delete flipped.outcomes.release_full;
    flipped.outcomes.brand_new = { status: 418, retry: false };
    doc = flipped;
    await rejects(client.assertProtocol(), (error: unknown) => {
      ok(error instanceof ProtocolMismatchError);
      deepEqual(error.differences.sort(), [
        "brand_new: unknown",
        "release_full: missing",
        'temporary_failure: {"status":503,"retry":false} instead of {"status":503,"retry":true}',
      ]);
      return true;
    });
  } finally {
    await service.close();
  }
  throws(
    () => assertOutcomesTable({ protocol_version: 2, outcomes: {} }),
    ProtocolMismatchError,
  );
});

Deno.test("PluginClient sends the bearer token, Idempotency-Key and body, and answers success in one attempt", async () => {
  const service = scriptedService(() =>
    outcome(200, "transition_applied", false, {}, { redirect: null })
  );
  try {
    const { client, sleeps } = clientFor(service.origin);
    const result = await client.request(transition);
    equal(result.kind, "success");
    if (result.kind === "success") {
      equal(result.outcomeCode, "transition_applied");
      equal(result.attempts, 1);
    }
    equal(
      service.seen[0].path,
      "/api/plugin/v1/content/c1/transitions/published",
    );
    equal(service.seen[0].auth, `Bearer svp_${"a".repeat(43)}`);
    equal(service.seen[0].key, "sched:i1:s1:r1");
    deepEqual(JSON.parse(service.seen[0].body), transition.json);
    deepEqual(sleeps, []);
  } finally {
    await service.close();
  }
});

Deno.test("PluginClient retries temporary_failure with jitter and repeats the same key and body (PAPI-039)", async () => {
  const service = scriptedService((n) =>
    n < 3
      ? outcome(503, "temporary_failure", true)
      : outcome(200, "transition_applied", false)
  );
  try {
    const { client, sleeps } = clientFor(service.origin);
    const result = await client.request(transition);
    equal(result.kind, "success");
    equal(service.seen.length, 3);
    // Equal jitter with random 0.5: 3/4 of 1000, then of 2000.
    deepEqual(sleeps, [750, 1500]);
    equal(new Set(service.seen.map((s) => s.key + s.body)).size, 1);
  } finally {
    await service.close();
  }
});

Deno.test("PluginClient honours a valid bounded Retry-After and backs off with jitter otherwise (PAPI-039)", async () => {
  const cases: [string, number][] = [
    ["7", 7_000],
    ["0", 0],
    ["300", 300_000],
    ["301", 750],
    ["-1", 750],
    ["1.5", 750],
    ["soon", 750],
    [new Date(1_800_000_000_000 + 12_000).toUTCString(), 12_000],
  ];
  for (const [header, expected] of cases) {
    const service = scriptedService((n) =>
      n === 1
        ? outcome(429, "rate_limited", true, { "retry-after": header })
        : Response.json({ data: [] })
    );
    try {
      const { client, sleeps } = clientFor(service.origin);
      const result = await client.request({ method: "GET", path: "/content" });
      equal(result.kind, "success", header);
      deepEqual(sleeps, [expected], header);
    } finally {
      await service.close();
    }
  }
});

Deno.test("PluginClient retries bare 429, 500, 502, 503 and 504 but not other statuses without an outcome (PAPI-039, PAPI-040)", async () => {
  for (const status of [429, 500, 502, 503, 504]) {
    const service = scriptedService((n) =>
      n === 1 ? new Response("busy", { status }) : Response.json({ ok: true })
    );
    try {
      const { client } = clientFor(service.origin);
      const result = await client.request({ method: "GET", path: "/context" });
      equal(result.kind, "success", String(status));
      equal(service.seen.length, 2);
    } finally {
      await service.close();
    }
  }
  for (const status of [400, 401, 403, 404, 409, 422, 501, 505]) {
    const service = scriptedService(() => new Response("no", { status }));
    try {
      const { client } = clientFor(service.origin);
      const result = await client.request({ method: "GET", path: "/context" });
      equal(result.kind, "terminal", String(status));
      if (result.kind === "terminal") equal(result.reason, "unexpected_status");
      equal(service.seen.length, 1);
    } finally {
      await service.close();
    }
  }
});

Deno.test("PluginClient treats a malformed outcome, an unknown code, a wrong retry flag or a status mismatch as terminal, even on 503 (PAPI-040)", async () => {
  const cases: [() => Response, string][] = [
    [
      () =>
        Response.json(
          { outcome: { code: "temporary_failure", message: "m" } },
          { status: 503 },
        ),
      "malformed_outcome",
    ],
    [
      () =>
        Response.json({
          outcome: { code: "temporary_failure", message: "m", retry: "true" },
        }, { status: 503 }),
      "malformed_outcome",
    ],
    [
      () =>
        Response.json({
          outcome: {
            code: "temporary_failure",
            message: "m",
            retry: true,
            x: 1,
          },
        }, { status: 503 }),
      "malformed_outcome",
    ],
    [
      () => Response.json({ outcome: "temporary_failure" }, { status: 503 }),
      "malformed_outcome",
    ],
    [
      () => Response.json({ outcome: null }, { status: 429 }),
      "malformed_outcome",
    ],
    [() => outcome(503, "service_sleeping", true), "unknown_code"],
    [() => outcome(503, "temporary_failure", false), "retry_flag_mismatch"],
    [() => outcome(409, "workflow_conflict", true), "retry_flag_mismatch"],
    [() => outcome(500, "temporary_failure", true), "status_mismatch"],
    [() => outcome(503, "rate_limited", true), "status_mismatch"],
    [() => outcome(200, "workflow_conflict", false), "status_mismatch"],
    [() => outcome(409, "workflow_conflict", false), "outcome"],
  ];
  for (const [reply, reason] of cases) {
    const service = scriptedService(reply);
    try {
      const { client, sleeps } = clientFor(service.origin);
      const result = await client.request(transition);
      equal(result.kind, "terminal", reason);
      if (result.kind === "terminal") equal(result.reason, reason);
      equal(service.seen.length, 1, reason);
      deepEqual(sleeps, []);
    } finally {
      await service.close();
    }
  }
});

Deno.test("PluginClient never follows a redirect (PAPI-040)", async () => {
  for (const status of [301, 302, 303, 307, 308]) {
    const service = scriptedService((_, req) =>
      new URL(req.url).pathname === "/elsewhere"
        ? Response.json({ ok: true })
        : new Response(null, { status, headers: { location: "/elsewhere" } })
    );
    try {
      const { client } = clientFor(service.origin);
      const result = await client.request(transition);
      equal(result.kind, "terminal");
      if (result.kind === "terminal") equal(result.reason, "redirect");
      deepEqual(service.seen.map((s) => s.path), [
        "/api/plugin/v1/content/c1/transitions/published",
      ]);
    } finally {
      await service.close();
    }
  }
});

Deno.test("PluginClient re-reads the token once on plugin_unauthorized and retries only when it changed (PLG-029)", async () => {
  const fresh = "svp_" + "b".repeat(43);
  // Unchanged token: terminal after one attempt and one re-read.
  let service = scriptedService(() =>
    outcome(401, "plugin_unauthorized", false)
  );
  try {
    const c = clientFor(service.origin);
    const result = await c.client.request(transition);
    equal(result.kind, "terminal");
    if (result.kind === "terminal") equal(result.code, "plugin_unauthorized");
    equal(service.seen.length, 1);
    equal(c.reads.length, 2);
  } finally {
    await service.close();
  }
  // Rotated while the request was in flight: one retry with the new token.
  let rotate = () => {};
  service = scriptedService((_, req) => {
    if (req.headers.get("authorization") === `Bearer ${fresh}`) {
      return outcome(200, "transition_applied", false);
    }
    rotate();
    return outcome(401, "plugin_unauthorized", false);
  });
  try {
    const c = clientFor(service.origin);
    rotate = () => c.setToken(fresh);
    const result = await c.client.request(transition);
    equal(result.kind, "success");
    deepEqual(service.seen.map((s) => s.auth), [
      `Bearer svp_${"a".repeat(43)}`,
      `Bearer ${fresh}`,
    ]);
    deepEqual(c.sleeps, []);
  } finally {
    await service.close();
  }
  // The new token refused too: terminal, never a third attempt or a second re-read.
  service = scriptedService(() => {
    rotate();
    return outcome(401, "plugin_unauthorized", false);
  });
  try {
    const c = clientFor(service.origin);
    let n = 0;
    rotate = () => c.setToken(`svp_${String(++n).padStart(43, "c")}`);
    const result = await c.client.request(transition);
    equal(result.kind, "terminal");
    equal(service.seen.length, 2);
    equal(c.reads.length, 2);
  } finally {
    await service.close();
  }
});

Deno.test("PluginClient stops at the attempt cap, the age cap and the deadline: exhausted, never one more send (PAPI-039)", async () => {
  const service = scriptedService(() =>
    outcome(503, "temporary_failure", true)
  );
  try {
    const a = clientFor(service.origin);
    const capped = await a.client.request(transition);
    deepEqual(capped, {
      kind: "exhausted",
      status: 503,
      code: "temporary_failure",
      retryAfterMs: null,
      attempts: 5,
    });
    equal(service.seen.length, 5);
    deepEqual(a.sleeps, [750, 1500, 3000, 6000]);

    service.seen.length = 0;
    const b = clientFor(service.origin, { maxAgeMs: 2_000 });
    const aged = await b.client.request(transition);
    equal(aged.kind, "exhausted");
    // 750 ms after the first, the second; the third would start after 2250 ms.
    equal(service.seen.length, 2);

    // Exactly at the cap an attempt still starts (spec 1 refuses only "later than"); 1 ms
    // later nothing is sent.
    service.seen.length = 0;
    const atCap = clientFor(service.origin, { maxAttempts: 1 });
    const onTime = await atCap.client.request({
      ...transition,
      startedAt: atCap.clock.now - 900_000,
    });
    equal(onTime.attempts, 1);
    equal(service.seen.length, 1);
    service.seen.length = 0;
    const c = clientFor(service.origin);
    const late = await c.client.request({
      ...transition,
      startedAt: c.clock.now - 900_001,
    });
    deepEqual(late, {
      kind: "exhausted",
      status: null,
      code: null,
      retryAfterMs: null,
      attempts: 0,
    });
    equal(service.seen.length, 0);

    // The first retry would start 750 ms in, past a deadline 700 ms away.
    const d = clientFor(service.origin);
    const deadline = await d.client.request({
      ...transition,
      deadline: d.clock.now + 700,
    });
    equal(deadline.kind, "exhausted");
    equal(service.seen.length, 1);
  } finally {
    await service.close();
  }
});

Deno.test("PluginClient retries a network fault within its caps (PAPI-039)", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const origin = `http://127.0.0.1:${port}`;
  const c = clientFor(origin, { maxAttempts: 3 });
  const result = await c.client.request(transition);
  deepEqual(result, {
    kind: "exhausted",
    status: null,
    code: null,
    retryAfterMs: null,
    attempts: 3,
  });
  deepEqual(c.sleeps, [750, 1500]);
});

Deno.test("PluginClient times out an attempt that hangs and retries it (PAPI-039)", async () => {
  let release = () => {};
  const hung = new Promise<void>((r) => (release = r));
  const service = scriptedService(async (n) => {
    if (n === 1) await hung;
    return Response.json({ ok: true });
  });
  try {
    const c = clientFor(service.origin, { attemptTimeoutMs: 30 });
    const result = await c.client.request({ method: "GET", path: "/context" });
    equal(result.kind, "success");
    if (result.kind === "success") equal(result.attempts, 2);
  } finally {
    release();
    await service.close();
  }
});

Deno.test("checkServiceUrl() wants https without credentials, query or fragment; http only for a listed development origin", () => {
  equal(checkServiceUrl("https://cms.example.com/").ok, true);
  for (
    const bad of [
      "http://cms.example.com",
      "https://u:p@cms.example.com",
      "https://cms.example.com/?site=x",
      "https://cms.example.com/#x",
      "nope",
    ]
  ) equal(checkServiceUrl(bad).ok, false, bad);
  const dev = { development: true, devOrigins: ["http://localhost:8000"] };
  equal(checkServiceUrl("http://localhost:8000", dev).ok, true);
  equal(checkServiceUrl("http://localhost:8001", dev).ok, false);
  equal(
    checkServiceUrl("http://localhost:8000", { ...dev, development: false }).ok,
    false,
  );
  throws(
    () =>
      new PluginClient({
        serviceUrl: "http://cms.example.com",
        readToken: () => "",
      }),
    TypeError,
  );
});

Deno.test("PluginClient's named calls reach the plugin API paths with their bodies", async () => {
  const service = scriptedService(() => Response.json({ data: {} }));
  try {
    const { client } = clientFor(service.origin);
    await client.context();
    await client.content("c 1", "d/1");
    await client.transition("c1", "published", {
      kind: "publish",
      expected_current_version_id: "v1",
      expected_workflow_revision: 2,
      delegation_id: "d1",
    }, { idempotencyKey: "k1" });
    await client.exchangeLaunch("svl_x");
    await client.exchangeInvocation("svi_y");
    deepEqual(
      service.seen.map((s) => [s.method, s.path, s.key, s.body]),
      [
        ["GET", "/api/plugin/v1/context", null, ""],
        ["GET", "/api/plugin/v1/content/c%201", null, ""],
        [
          "POST",
          "/api/plugin/v1/content/c1/transitions/published",
          "k1",
          '{"kind":"publish","expected_current_version_id":"v1","expected_workflow_revision":2,"delegation_id":"d1"}',
        ],
        ["POST", "/api/plugin/v1/launch/exchange", null, '{"code":"svl_x"}'],
        [
          "POST",
          "/api/plugin/v1/invocations/exchange",
          null,
          '{"code":"svi_y"}',
        ],
      ],
    );
  } finally {
    await service.close();
  }
});

Deno.test("PluginClient asks proceed() before every attempt: false ends the call unsent, stopped, after any attempts already made", async () => {
  const service = scriptedService(() =>
    outcome(503, "temporary_failure", true)
  );
  try {
    const { client } = clientFor(service.origin);
    const never = await client.request({ ...transition, proceed: () => false });
    deepEqual(never, {
      kind: "exhausted",
      status: null,
      code: null,
      retryAfterMs: null,
      attempts: 0,
      stopped: true,
    });
    equal(service.seen.length, 0);
    let asked = 0;
    const once = await client.request({
      ...transition,
      proceed: () => Promise.resolve(++asked === 1),
    });
    equal(once.kind, "exhausted");
    if (once.kind === "exhausted") {
      deepEqual([once.attempts, once.code, once.stopped], [
        1,
        "temporary_failure",
        true,
      ]);
    }
    equal(asked, 2);
    equal(service.seen.length, 1);
    // Left to its caps, the same call is not marked stopped.
    const capped = await client.request(transition);
    equal(capped.kind === "exhausted" && capped.stopped, undefined);
  } finally {
    await service.close();
  }
});
