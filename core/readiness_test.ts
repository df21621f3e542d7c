import { deepEqual, equal } from "node:assert/strict";
import { openTestApp } from "../tests/support/app.ts";
import type { MediaStorage } from "./media/storage.ts";
import { StorageUnavailable } from "./media/storage.ts";

/** Storage whose every call fails or never answers, as an outage looks from here. */
function brokenStorage(mode: "fails" | "hangs"): MediaStorage {
  const fail = (): Promise<never> =>
    mode === "fails"
      ? Promise.reject(new StorageUnavailable("connection refused"))
      : new Promise<never>(() => {});
  return {
    kind: "s3",
    put: fail,
    putStream: fail,
    read: fail,
    stat: fail,
    delete: fail,
    list: () => ({ [Symbol.asyncIterator]: () => ({ next: fail }) }),
  };
}

Deno.test("GET /health/ready answers 503 with Retry-After naming the store that failed or was too slow, and 200 when every store answers", async () => {
  const t = await openTestApp();
  try {
    const ok = await t.app.request("/health/ready");
    equal(ok.status, 200);
    deepEqual(await ok.json(), {
      ready: true,
      stopping: false,
      checks: { database: "ok", kv: "ok", storage: "ok" },
    });

    t.services.media = brokenStorage("fails");
    const failed = await t.app.request("/health/ready");
    equal(failed.status, 503);
    equal(failed.headers.get("retry-after"), "5");
    deepEqual((await failed.json()).checks, {
      database: "ok",
      kv: "ok",
      storage: "unavailable",
    });

    const stopping = new AbortController();
    t.services.media = undefined;
    t.services.stopping = stopping.signal;
    stopping.abort();
    const drained = await t.app.request("/health/ready");
    equal(drained.status, 503);
    deepEqual(await drained.json(), {
      ready: false,
      stopping: true,
      checks: { database: "ok", kv: "ok", storage: "ok" },
    });
  } finally {
    await t.close();
  }
});

Deno.test("checkReadiness() counts a store that does not answer within the bound as a timeout", async () => {
  const { checkReadiness } = await import("./readiness.ts");
  const t = await openTestApp();
  try {
    t.services.media = brokenStorage("hangs");
    const readiness = await checkReadiness(t.services, { timeoutMs: 20 });
    equal(readiness.ready, false);
    equal(readiness.checks.storage, "timeout");
  } finally {
    await t.close();
  }
});
