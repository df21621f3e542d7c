// The request id on log lines and answers (core/telemetry/request.ts).
import { deepEqual, equal, match, notEqual } from "node:assert/strict";
import { Hono } from "hono";
import type { LogEntry } from "../services.ts";
import type { AppEnv } from "../web/env.ts";
import { requestTelemetry } from "./request.ts";

/** An app whose one route writes two log lines; every line lands in `lines`. */
function appLogging(lines: LogEntry[]): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", async (c, next) => {
    c.set("log", (entry) => lines.push(entry));
    await next();
  });
  app.use("*", requestTelemetry());
  app.get("/", (c) => {
    c.var.log({ level: "info", msg: "first" });
    c.var.log({ level: "info", msg: "second" });
    return c.text("ok");
  });
  return app;
}

Deno.test("a request without an id gets one on every log line of the request, the same on each, and answers none", async () => {
  const lines: LogEntry[] = [];
  const res = await appLogging(lines).request("/");
  equal(res.headers.get("x-request-id"), null);
  equal(lines.length, 2);
  match(String(lines[0].request_id), /^[0-9a-f-]{36}$/);
  equal(lines[1].request_id, lines[0].request_id);
  const other: LogEntry[] = [];
  await appLogging(other).request("/");
  notEqual(other[0].request_id, lines[0].request_id);
});

Deno.test("a well-formed X-Request-Id is written on the log lines and answered back; a malformed one is replaced and not answered", async () => {
  const lines: LogEntry[] = [];
  const sent = await appLogging(lines).request("/", {
    headers: { "x-request-id": "trace-1234.abc" },
  });
  equal(sent.headers.get("x-request-id"), "trace-1234.abc");
  deepEqual(lines.map((l) => l.request_id), [
    "trace-1234.abc",
    "trace-1234.abc",
  ]);
  const bad: LogEntry[] = [];
  const refused = await appLogging(bad).request("/", {
    headers: { "x-request-id": "short" },
  });
  equal(refused.headers.get("x-request-id"), null);
  match(String(bad[0].request_id), /^[0-9a-f-]{36}$/);
});
