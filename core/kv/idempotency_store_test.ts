import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { ManualClock } from "../clock.ts";
import { sha256Hex } from "./digest.ts";
import {
  IDEMPOTENCY_RETENTION_LONG_MS,
  IDEMPOTENCY_RETENTION_MS,
} from "./idempotency_key.ts";
import {
  type ClaimOptions,
  type IdempotencyClaim,
  IdempotencyStore,
} from "./idempotency_store.ts";
import {
  type IdempotentAnswer,
  MAX_ANSWER_BODY_BYTES,
} from "./idempotent_answer.ts";
import { openKvStore } from "./open.ts";

const LEASE = 60_000;
const ref = { scope: ["cred-1", "site-1"], key: "key-1" };

async function setup() {
  const kv = await openKvStore(null);
  const clock = new ManualClock("2026-03-01T12:00:00.000Z");
  return {
    kv,
    clock,
    store: new IdempotencyStore(kv, { clock, claimLeaseMs: LEASE }),
  };
}

async function request(
  body = '{"title":"Hello"}',
  overrides: Partial<ClaimOptions> = {},
): Promise<ClaimOptions> {
  return {
    method: "POST",
    path: "/api/manage/v1/entries",
    bodyDigest: await sha256Hex(body),
    retentionMs: IDEMPOTENCY_RETENTION_MS,
    ...overrides,
  };
}

const created: IdempotentAnswer = {
  status: 201,
  headers: {
    "content-type": "application/json",
    location: "/api/manage/v1/entries/e1",
  },
  body: '{"id":"e1"}',
};

async function claimed(
  store: IdempotencyStore,
  options: ClaimOptions,
): Promise<IdempotencyClaim> {
  const result = await store.claim(ref, options);
  if (!result.ok || result.replayed) {
    throw new Error(`Expected a fresh claim, got ${JSON.stringify(result)}`);
  }
  return result.claim;
}

async function pendingClaim(
  store: IdempotencyStore,
): Promise<IdempotencyClaim> {
  const result = await store.claim(ref, await request());
  if (result.ok || !("claim" in result)) {
    throw new Error(`Expected a pending claim, got ${JSON.stringify(result)}`);
  }
  return result.claim;
}

Deno.test("IdempotencyStore.claim() claims a new key, then replays the exact first answer", async () => {
  const { kv, clock, store } = await setup();
  try {
    const claim = await claimed(store, await request());
    deepEqual(claim.scope, ref.scope);
    equal(claim.key, ref.key);
    deepEqual(claim.claimedAt, clock.now());
    deepEqual(
      claim.expiresAt,
      new Date(clock.now().getTime() + IDEMPOTENCY_RETENTION_MS),
    );
    clock.advance(500);
    deepEqual(await store.answer(claim, created), { ok: true });
    clock.advance(1000);
    deepEqual(await store.claim(ref, await request()), {
      ok: true,
      replayed: true,
      answer: created,
      answeredAt: new Date(claim.claimedAt.getTime() + 500),
    });
    deepEqual(await store.answer(claim, { ...created, status: 200 }), {
      ok: false,
      code: "claim_changed",
    });
  } finally {
    kv.close();
  }
});

Deno.test("IdempotencyStore.claim() answers idempotency_key_reused for another method, path or body", async () => {
  const { kv, store } = await setup();
  try {
    const claim = await claimed(store, await request());
    const reused = { ok: false, code: "idempotency_key_reused" };
    deepEqual(
      await store.claim(ref, await request(undefined, { method: "PUT" })),
      reused,
    );
    deepEqual(
      await store.claim(
        ref,
        await request(undefined, { path: "/api/manage/v1/pages" }),
      ),
      reused,
    );
    deepEqual(
      await store.claim(ref, await request('{"title":"Hello!"}')),
      reused,
    );
    await store.answer(claim, created);
    deepEqual(
      await store.claim(ref, await request('{"title":"Hello!"}')),
      reused,
    );
    equal(
      (await store.claim(ref, await request(undefined, { method: "post" }))).ok,
      true,
    );
  } finally {
    kv.close();
  }
});

Deno.test("IdempotencyStore.claim() keeps scopes apart", async () => {
  const { kv, store } = await setup();
  try {
    await claimed(store, await request());
    const other = await store.claim({
      scope: ["cred-2", "site-1"],
      key: ref.key,
    }, await request("{}"));
    ok(other.ok && !other.replayed);
  } finally {
    kv.close();
  }
});

Deno.test("IdempotencyStore.claim() answers in_progress with Retry-After while young, pending from the lease on", async () => {
  const { kv, clock, store } = await setup();
  try {
    const claim = await claimed(store, await request());
    deepEqual(await store.claim(ref, await request()), {
      ok: false,
      code: "idempotency_in_progress",
      pending: false,
      retryAfterSeconds: 5,
    });
    clock.advance(LEASE - 2001);
    equal(
      (await store.claim(ref, await request()) as { retryAfterSeconds: number })
        .retryAfterSeconds,
      3,
    );
    clock.advance(2000);
    deepEqual(await store.claim(ref, await request()), {
      ok: false,
      code: "idempotency_in_progress",
      pending: false,
      retryAfterSeconds: 1,
    });
    clock.advance(1);
    deepEqual(await store.claim(ref, await request()), {
      ok: false,
      code: "idempotency_in_progress",
      pending: true,
      retryAfterSeconds: null,
      claim,
    });
  } finally {
    kv.close();
  }
});

Deno.test("IdempotencyStore.claim() lets exactly one of concurrent claims of one key win", async () => {
  const { kv, store } = await setup();
  try {
    const options = await request();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => store.claim(ref, options)),
    );
    equal(results.filter((r) => r.ok && !r.replayed).length, 1);
    for (const r of results) {
      if (!r.ok) equal(r.code, "idempotency_in_progress");
    }
  } finally {
    kv.close();
  }
});

Deno.test("IdempotencyStore.free() lets a retry claim the key again", async () => {
  const { kv, store } = await setup();
  try {
    const claim = await claimed(store, await request());
    deepEqual(await store.free(claim), { ok: true });
    deepEqual(await store.free(claim), { ok: false, code: "claim_changed" });
    const again = await claimed(store, await request());
    ok(again.token !== claim.token);
    deepEqual(await store.answer(claim, created), {
      ok: false,
      code: "claim_changed",
    });
  } finally {
    kv.close();
  }
});

Deno.test("IdempotencyStore.claim() forgets a key at its retention: 24 hours, or 30 days for publish (MAPI-009)", async () => {
  const { kv, clock, store } = await setup();
  try {
    for (
      const retentionMs of [
        IDEMPOTENCY_RETENTION_MS,
        IDEMPOTENCY_RETENTION_LONG_MS,
      ]
    ) {
      const options = await request(`{"retention":${retentionMs}}`, {
        retentionMs,
      });
      const claim = await claimed(store, options);
      await store.answer(claim, created);
      clock.advance(retentionMs - 1);
      equal(
        (await store.claim(ref, options) as { replayed: boolean }).replayed,
        true,
      );
      clock.advance(1);
      deepEqual(await store.answer(claim, created), {
        ok: false,
        code: "claim_changed",
      });
      const fresh = await store.claim(ref, options);
      ok(fresh.ok && !fresh.replayed);
      await store.free(fresh.claim);
    }
  } finally {
    kv.close();
  }
});

Deno.test("IdempotencyStore.claim() forgets a pending claim with its key (MAPI-013)", async () => {
  const { kv, clock, store } = await setup();
  try {
    await claimed(store, await request());
    clock.advance(IDEMPOTENCY_RETENTION_MS - 1);
    equal(
      (await store.claim(ref, await request()) as { pending: boolean }).pending,
      true,
    );
    clock.advance(1);
    const fresh = await store.claim(ref, await request('{"other":true}'));
    ok(fresh.ok && !fresh.replayed);
  } finally {
    kv.close();
  }
});

Deno.test("IdempotencyStore.settle() records a proven answer for a pending claim; the first answer wins", async () => {
  const { kv, clock, store } = await setup();
  try {
    await claimed(store, await request());
    clock.advance(LEASE);
    const pending = await pendingClaim(store);
    deepEqual(await store.settle(pending, created), {
      ok: true,
      answer: created,
    });
    const replay = await store.claim(ref, await request());
    ok(replay.ok && replay.replayed);
    deepEqual(replay.answer, created);
    const late = { ...created, body: '{"id":"e2"}' };
    deepEqual(await store.settle(pending, late), {
      ok: true,
      answer: created,
    });
  } finally {
    kv.close();
  }
});

Deno.test("IdempotencyStore.reclaim() takes over a pending claim once; the lost holder can no longer answer", async () => {
  const { kv, clock, store } = await setup();
  try {
    const lost = await claimed(store, await request());
    clock.advance(LEASE);
    const pending = await pendingClaim(store);
    const [first, second] = await Promise.all([
      store.reclaim(pending),
      store.reclaim(pending),
    ]);
    equal([first, second].filter((r) => r.ok).length, 1);
    const taken = first.ok ? first.claim : second.ok ? second.claim : lost;
    deepEqual(taken.claimedAt, clock.now());
    deepEqual(taken.expiresAt, lost.expiresAt);
    equal(
      (await store.claim(ref, await request()) as { pending: boolean }).pending,
      false,
    );
    deepEqual(await store.answer(lost, created), {
      ok: false,
      code: "claim_changed",
    });
    deepEqual(await store.settle(lost, created), {
      ok: false,
      code: "claim_changed",
    });
    deepEqual(await store.answer(taken, created), { ok: true });
    equal(
      (await store.claim(ref, await request()) as { replayed: boolean })
        .replayed,
      true,
    );
  } finally {
    kv.close();
  }
});

Deno.test("IdempotencyStore.answer() stores a body larger than one KV value exactly, up to the limit", async () => {
  const { kv, store } = await setup();
  try {
    const body = JSON.stringify({ text: "é€😀 ".repeat(40_000) });
    ok(new TextEncoder().encode(body).length > 300_000);
    const claim = await claimed(store, await request());
    await store.answer(claim, { ...created, body });
    const replay = await store.claim(ref, await request());
    ok(replay.ok && replay.replayed);
    equal(replay.answer.body, body);

    const edge = { scope: ["edge"], key: "k" };
    const largest = await store.claim(edge, await request());
    ok(largest.ok && !largest.replayed);
    await rejects(
      store.answer(largest.claim, {
        ...created,
        body: "x".repeat(MAX_ANSWER_BODY_BYTES + 1),
      }),
      RangeError,
    );
    deepEqual(
      await store.answer(largest.claim, {
        ...created,
        body: "x".repeat(MAX_ANSWER_BODY_BYTES),
      }),
      { ok: true },
    );
    const replayLargest = await store.claim(edge, await request());
    ok(replayLargest.ok && replayLargest.replayed);
    equal(replayLargest.answer.body.length, MAX_ANSWER_BODY_BYTES);
  } finally {
    kv.close();
  }
});

Deno.test("IdempotencyStore.claim() throws for a key outside 1 to 128 visible ASCII characters", async () => {
  const { kv, store } = await setup();
  try {
    for (const key of ["", "a b", "x".repeat(129)]) {
      await rejects(
        store.claim({ scope: ["s"], key }, await request()),
        TypeError,
      );
    }
    await rejects(
      store.claim(ref, await request(undefined, { retentionMs: 0 })),
      RangeError,
    );
  } finally {
    kv.close();
  }
});

Deno.test("IdempotencyStore.answer() of a claim another process freed or answered meanwhile is claim_changed", async () => {
  const { kv, clock, store } = await setup();
  // A second store on the same KV stands for another service process.
  const other = new IdempotencyStore(kv, { clock, claimLeaseMs: LEASE });
  try {
    const freed = await claimed(store, await request());
    deepEqual(await other.free({ ...freed }), { ok: true });
    deepEqual(await store.answer(freed, created), {
      ok: false,
      code: "claim_changed",
    });
    const answered = await claimed(store, await request());
    deepEqual(await other.answer({ ...answered }, created), { ok: true });
    deepEqual(await store.free(answered), {
      ok: false,
      code: "claim_changed",
    });
    equal(
      (await store.claim(ref, await request()) as { replayed: boolean })
        .replayed,
      true,
    );
  } finally {
    kv.close();
  }
});
