// runKeyed() when the database connection drops while the command runs: free, settle or hold.
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { IdempotencyStore } from "../kv/idempotency_store.ts";
import { openKvStore } from "../kv/open.ts";
import type { KeyRule } from "./contract/operation.ts";
import {
  runKeyed,
  type RunKeyedOptions,
  type SentAnswer,
} from "./idempotency.ts";

const lost = Object.assign(
  new Error("terminating connection due to administrator command"),
  { code: "57P01" },
);
const written: SentAnswer = {
  status: 201,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ code: "fr" }),
};
const PROVE: KeyRule = { retention: "short", settle: "prove" };
const RERUN: KeyRule = { retention: "short", settle: "rerun" };

async function withStore(
  fn: (
    keyed: (
      rule: KeyRule,
      run: () => Promise<SentAnswer>,
      prove?: () => Promise<SentAnswer | null>,
      key?: string,
    ) => Promise<SentAnswer>,
  ) => Promise<void>,
) {
  const kv = await openKvStore(null);
  try {
    const store = new IdempotencyStore(kv);
    await fn((rule, run, prove, key = "k-1") => {
      const options: RunKeyedOptions = {
        store,
        rule,
        scope: ["manage", "site", "credential"],
        key,
        method: "POST",
        target: "/api/manage/v1/languages",
        rawBody: new TextEncoder().encode('{"code":"fr"}'),
        run,
        prove,
        log: () => {},
      };
      return runKeyed(options);
    });
  } finally {
    kv.close();
  }
}

Deno.test("runKeyed(): a lost connection with nothing written frees the key (503 to the caller), and the retry runs the command once", () =>
  withStore(async (keyed) => {
    let runs = 0;
    await rejects(
      keyed(PROVE, () => {
        runs++;
        return Promise.reject(lost);
      }, () => Promise.resolve(null)),
      (error) => error === lost,
    );
    const retried = await keyed(PROVE, () => {
      runs++;
      return Promise.resolve(written);
    });
    equal(retried.status, 201);
    equal(retried.headers["idempotent-replayed"], undefined);
    equal(runs, 2);
    // A command settled by running again frees its key the same way.
    await rejects(
      keyed(RERUN, () => Promise.reject(lost), undefined, "k-2"),
      (error) => error === lost,
    );
    const rerun = await keyed(
      RERUN,
      () => Promise.resolve(written),
      undefined,
      "k-2",
    );
    equal(rerun.headers["idempotent-replayed"], undefined);
  }));

Deno.test("runKeyed(): a lost connection after the effect was written answers the written answer, replayed, and keeps it", () =>
  withStore(async (keyed) => {
    // The commit went through; only its acknowledgement was lost with the connection.
    const answer = await keyed(
      PROVE,
      () => Promise.reject(lost),
      () => Promise.resolve(written),
    );
    equal(answer.status, 201);
    deepEqual(JSON.parse(answer.body), { code: "fr", replayed: true });
    const again = await keyed(PROVE, () => {
      throw new Error("a kept answer never runs the command");
    });
    equal(again.headers["idempotent-replayed"], "true");
  }));

Deno.test("runKeyed(): when even the proof cannot be read the claim stays pending: the retry is 409 idempotency_in_progress, never a second run", () =>
  withStore(async (keyed) => {
    await rejects(
      keyed(PROVE, () => Promise.reject(lost), () => Promise.reject(lost)),
      (error) => error === lost,
    );
    let runs = 0;
    await rejects(
      keyed(PROVE, () => {
        runs++;
        return Promise.resolve(written);
      }),
      (error) => {
        ok(error instanceof Error);
        equal((error as { code?: string }).code, "idempotency_in_progress");
        return true;
      },
    );
    equal(runs, 0);
  }));
