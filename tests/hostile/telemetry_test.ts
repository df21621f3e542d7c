// Traces and metrics (issue 47 item 3): the service run with OTEL_DENO=true exports over OTLP/HTTP
// to a small receiver written here. Each request is a span named by its route pattern with its
// request id and no query string; SQL statements, KV operations and plugin calls are child spans;
// the request, pool, KV, cron and answer-cache metrics arrive; no secret the requests carried
// appears anywhere in the export.
import { equal, ok } from "node:assert/strict";
import { ON_POSTGRES } from "../support/db.ts";
import {
  privateProcessEnv,
  type RunningService,
  spawnService,
} from "../support/process.ts";

interface OtlpSpan {
  /** The instrumentation scope: `stave`, or `deno` for the runtime's own spans. */
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
}

/** An OTLP/HTTP receiver (JSON encoding) on 127.0.0.1 keeping every body it is sent. */
function otlpReceiver() {
  const bodies: { path: string; text: string }[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      bodies.push({
        path: new URL(request.url).pathname,
        text: await request.text(),
      });
      return Response.json({});
    },
  );
  return {
    endpoint: `http://127.0.0.1:${server.addr.port}`,
    bodies,
    spans(): OtlpSpan[] {
      return bodies.filter((b) => b.path === "/v1/traces").flatMap((b) =>
        JSON.parse(b.text).resourceSpans.flatMap((
          r: { scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] },
        ) =>
          r.scopeSpans.flatMap((s) =>
            s.spans.map((span) => ({ ...span, scope: s.scope.name }))
          )
        )
      );
    },
    metricNames(): Set<string> {
      return new Set(
        bodies.filter((b) => b.path === "/v1/metrics").flatMap((b) =>
          JSON.parse(b.text).resourceMetrics.flatMap((
            r: { scopeMetrics: { metrics: { name: string }[] }[] },
          ) => r.scopeMetrics.flatMap((s) => s.metrics.map((m) => m.name)))
        ),
      );
    },
    close: () => server.shutdown(),
  };
}

function attribute(span: OtlpSpan, key: string): unknown {
  const found = span.attributes.find((a) => a.key === key)?.value;
  return found ? Object.values(found)[0] : undefined;
}

Deno.test({
  name:
    "OTEL_DENO=true exports a span per request named by route pattern, SQL, KV and plugin-call child spans, the service's metrics, and no secret (issue 47 item 3)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const receiver = otlpReceiver();
    const p = await privateProcessEnv({});
    // Secrets a request may carry: none of them may reach the collector.
    const previewSecret = `sv_prv_${"p".repeat(43)}`;
    const bearer = `sv_mc_${"b".repeat(43)}`;
    const requestId = "req-telemetry-0001";
    let service: RunningService | undefined;
    try {
      service = await spawnService({
        ...p.env,
        DEMO_SITE: "true",
        // The scheduling plugin is installed on the demo at start: a real plugin call.
        SCHEDULER_COMPANION: "true",
        // With DATABASE_URL the default is production, which runs no companion.
        ENVIRONMENT: "development",
        OTEL_DENO: "true",
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "stave",
        // Gauges (pool connections) are read at each export; the pools are closed before the last.
        OTEL_METRIC_EXPORT_INTERVAL: "500",
      });
      let stopped;
      try {
        // The scheduling plugin is installed once start-up reports it (the demo alone took 26 s
        // of a busy machine once, so the wait allows two minutes).
        for (
          let i = 0;
          i < 2400 && !/Scheduling plugin/.test(service.stdout());
          i++
        ) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        ok(
          /Scheduling plugin .*installed/.test(service.stdout()),
          service.stdout(),
        );
        const list = await fetch(
          `http://localhost:${service.port}/v1/posts?limit=1&preview=${previewSecret}`,
          { headers: { "x-request-id": requestId } },
        );
        await list.body?.cancel();
        equal(list.headers.get("x-request-id"), requestId);
        for (let i = 0; i < 2; i++) {
          const again: Response = await fetch(
            `http://localhost:${service.port}/v1/posts?limit=1`,
          );
          await again.body?.cancel();
          // An id made by the service is logged, not answered: answers stay byte-identical.
          equal(again.headers.get("x-request-id"), null);
        }
        // Readiness reads KV (and the database and storage).
        const ready = await fetch(
          `http://127.0.0.1:${service.port}/health/ready`,
        );
        equal(ready.status, 200, await ready.text());
        const manage = await fetch(
          `http://localhost:${service.port}/api/manage/v1/site`,
          { headers: { authorization: `Bearer ${bearer}` } },
        );
        await manage.body?.cancel();
        equal(manage.status, 401);
        // The periodic export that reads the pool gauge while the service runs.
        for (
          let i = 0;
          i < 200 && !receiver.metricNames().has("stave.db.pool.connections") &&
          ON_POSTGRES;
          i++
        ) await new Promise((resolve) => setTimeout(resolve, 50));
      } finally {
        // Deno exports what is left when the process ends.
        stopped = await service.stop();
      }
      equal(
        stopped.code,
        0,
        `${stopped.code} ${stopped.stderr} ${service!.stdout().slice(-3000)}`,
      );

      const spans = receiver.spans();
      const request = spans.find((s) =>
        attribute(s, "stave.request_id") === requestId
      );
      ok(
        request,
        `no span carries the request id: ${spans.map((s) => s.name)}`,
      );
      equal(request.name, "GET /v1/:model");
      equal(attribute(request, "http.route"), "/v1/:model");
      // Deno's own values stay beside these (see below); the service's are without the query.
      const values = (key: string) =>
        request.attributes.filter((a) => a.key === key).map((a) =>
          Object.values(a.value)[0]
        );
      ok(
        values("url.full").includes(
          `http://localhost:${service.port}/v1/posts`,
        ),
      );
      ok(values("url.query").includes(""));
      // Statements and KV reads of that request are its children (same trace).
      const children = spans.filter((s) => s.traceId === request.traceId);
      const sqlSpan = children.find((s) =>
        attribute(s, "db.system.name") === "postgresql"
      );
      ok(sqlSpan, `no SQL span: ${children.map((s) => s.name)}`);
      ok(/^(SELECT|WITH)/.test(sqlSpan.name), sqlSpan.name);
      ok(typeof attribute(sqlSpan, "db.query.text") === "string");
      ok(
        spans.some((s) => attribute(s, "db.system.name") === "deno_kv"),
        "a KV span",
      );
      ok(
        spans.some((s) => s.name.startsWith("plugin call ")),
        `a plugin call span: ${[...new Set(spans.map((s) => s.name))]}`,
      );
      const manageSpan = spans.find((s) =>
        attribute(s, "http.route") === "/api/manage/v1/site"
      );
      ok(
        manageSpan,
        `the management request is named by its route: ${
          spans.map((s) => attribute(s, "http.route")).filter(Boolean)
        }`,
      );

      const names = receiver.metricNames();
      for (
        const name of [
          "stave.http.requests",
          "stave.http.request.duration",
          "stave.kv.operations",
          "stave.answer_cache.lookups",
          "stave.plugin.calls",
          ...(ON_POSTGRES ? ["stave.db.pool.connections"] : []),
        ]
      ) ok(names.has(name), `metric ${name} in ${[...names]}`);

      // A bearer token is in a header: no span, metric or log carries headers.
      const exported = receiver.bodies.map((b) => b.text).join("\n");
      ok(!exported.includes(bearer), "no bearer token");
      ok(
        !receiver.bodies.filter((b) => b.path !== "/v1/traces").some((b) =>
          b.text.includes(previewSecret)
        ),
        "no preview token in metrics or logs",
      );
      // The preview token is in the query string. The service's spans never carry it; Deno's own
      // request span records the URL as received (url.full, url.query) when it starts, and an
      // attribute set later is added beside it, not in its place: a known limit of Deno's
      // instrumentation that docs/deploy.md tells operators to handle in their collector.
      for (const span of spans) {
        const leaking = span.attributes.filter((a) =>
          JSON.stringify(a.value).includes(previewSecret)
        ).map((a) => a.key);
        if (leaking.length === 0) continue;
        equal(span.scope, "deno", `${span.name} carries the token`);
        ok(
          leaking.every((key) => key === "url.full" || key === "url.query"),
          `${span.name}: ${leaking}`,
        );
      }
    } finally {
      await receiver.close();
      await p.cleanup();
    }
  },
});
