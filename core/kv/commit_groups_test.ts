// Group commit for Deno KV: operations that wait share a commit, and each keeps its own answer.
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import {
  atomicOf,
  CommitGroups,
  MAX_GROUP_OPERATIONS,
  type PlannedAtomic,
} from "./commit_groups.ts";
import { IdempotencyStore } from "./idempotency_store.ts";
import { openKvStore } from "./open.ts";

/** Groups on a fresh in-memory store, recording how many operations each commit carried. */
async function groupsOnKv() {
  const kv = await Deno.openKv(":memory:");
  const sizes: number[] = [];
  const groups = new CommitGroups((group) => {
    sizes.push(group.length);
    return atomicOf(kv, group).commit();
  });
  return { kv, sizes, groups };
}

function setIfAbsent(key: string, value: unknown): PlannedAtomic {
  return {
    checks: [{ key: ["t", key], versionstamp: null }],
    mutations: [{ type: "set", key: ["t", key], value }],
  };
}

Deno.test("CommitGroups commits an operation at once when idle and the ones that wait meanwhile in one commit", async () => {
  const { kv, sizes, groups } = await groupsOnKv();
  try {
    const results = await Promise.all(
      Array.from(
        { length: 10 },
        (_, i) => groups.commit(setIfAbsent(`k${i}`, i)),
      ),
    );
    deepEqual(sizes, [1, 9]);
    ok(results.every((r) => r.ok));
    // The nine of the group share one versionstamp, which every key they wrote carries.
    equal(new Set(results.slice(1).map((r) => r.ok && r.versionstamp)).size, 1);
    for (let i = 0; i < 10; i++) {
      const entry = await kv.get(["t", `k${i}`]);
      equal(entry.value, i);
      equal(entry.versionstamp, results[i].ok && results[i].versionstamp);
    }
  } finally {
    kv.close();
  }
});

Deno.test("CommitGroups never puts two operations on one key in a commit, and commits them in arrival order", async () => {
  const { kv, sizes, groups } = await groupsOnKv();
  try {
    const [, first, second, other] = await Promise.all([
      groups.commit(setIfAbsent("x", 0)),
      groups.commit(setIfAbsent("same", "first")),
      groups.commit(setIfAbsent("same", "second")),
      groups.commit(setIfAbsent("other", 1)),
    ]);
    deepEqual(sizes, [1, 2, 1]);
    ok(first.ok);
    // Had the two shared a commit, both checks would have passed against the absent key.
    equal(second.ok, false);
    ok(other.ok);
    equal((await kv.get(["t", "same"])).value, "first");
  } finally {
    kv.close();
  }
});

Deno.test("CommitGroups answers each operation alone when its group's commit fails a check", async () => {
  const { kv, sizes, groups } = await groupsOnKv();
  try {
    await kv.set(["t", "taken"], "before");
    const [, stale, fresh] = await Promise.all([
      groups.commit(setIfAbsent("x", 0)),
      groups.commit(setIfAbsent("taken", "mine")),
      groups.commit(setIfAbsent("fresh", "mine")),
    ]);
    deepEqual(sizes, [1, 2, 1, 1]);
    equal(stale.ok, false);
    ok(fresh.ok);
    equal((await kv.get(["t", "taken"])).value, "before");
    equal((await kv.get(["t", "fresh"])).value, "mine");
  } finally {
    kv.close();
  }
});

Deno.test("CommitGroups reports an error thrown by a grouped commit to its own operation only", async () => {
  const { kv, groups } = await groupsOnKv();
  try {
    const tooLarge: PlannedAtomic = {
      checks: [],
      // Deno KV keeps values of at most 64 KiB.
      mutations: [{
        type: "set",
        key: ["t", "big"],
        value: new Uint8Array(70_000),
      }],
    };
    const outcomes = await Promise.allSettled([
      groups.commit(setIfAbsent("x", 0)),
      groups.commit(tooLarge),
      groups.commit(setIfAbsent("small", 1)),
    ]);
    equal(outcomes[0].status, "fulfilled");
    equal(outcomes[1].status, "rejected");
    equal(outcomes[2].status, "fulfilled");
    await rejects(() => groups.commit(tooLarge), TypeError);
    equal((await kv.get(["t", "small"])).value, 1);
    equal((await kv.get(["t", "big"])).value, null);
  } finally {
    kv.close();
  }
});

Deno.test("CommitGroups recommits a failed group's operations side by side, so each waits only for its own commit", async () => {
  let inFlight = 0;
  let most = 0;
  const release: (() => void)[] = [];
  const groups = new CommitGroups(async (group) => {
    if (group.length > 1) throw new Error("database is locked");
    inFlight++;
    most = Math.max(most, inFlight);
    await new Promise<void>((resolve) => release.push(resolve));
    inFlight--;
    return { ok: true, versionstamp: "00000000000000010000" };
  });
  const first = groups.commit(setIfAbsent("x", 0));
  const rest = [
    groups.commit(setIfAbsent("a", 1)),
    groups.commit(setIfAbsent("b", 2)),
  ];
  release.shift()!();
  await first;
  // Both of the failed group's operations are committing before either is answered.
  for (let turn = 0; turn < 100 && release.length < 2; turn++) {
    await Promise.resolve();
  }
  equal(most, 2);
  for (const go of release.splice(0)) go();
  ok((await Promise.all(rest)).every((r) => r.ok));
});

Deno.test("CommitGroups keeps a group within its size: at most so many operations, and large values apart", async () => {
  const { kv, sizes, groups } = await groupsOnKv();
  try {
    const many = MAX_GROUP_OPERATIONS + 5;
    await Promise.all(
      Array.from(
        { length: many + 1 },
        (_, i) => groups.commit(setIfAbsent(`n${i}`, i)),
      ),
    );
    deepEqual(sizes, [1, MAX_GROUP_OPERATIONS, 5]);
    sizes.length = 0;
    // Five values of 60,000 bytes: four fit in a commit's share of Deno KV's 800 KiB, five do not.
    await Promise.all(
      Array.from(
        { length: 6 },
        (_, i) => groups.commit(setIfAbsent(`big${i}`, new Uint8Array(60_000))),
      ),
    );
    deepEqual(sizes, [1, 4, 1]);
  } finally {
    kv.close();
  }
});

Deno.test("CommitGroups keeps a group's mutated keys within Deno KV's 80 KiB of them", async () => {
  const { kv, sizes, groups } = await groupsOnKv();
  try {
    // Ten keys of about 1,900 bytes per operation: four operations' keys would pass the limit,
    // so a group takes two; one commit of all five waiting is refused whole.
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, op) =>
        groups.commit({
          checks: [],
          mutations: Array.from({ length: 10 }, (_, i) => ({
            type: "set" as const,
            key: ["long", `${op}-${i}-`.padEnd(1_900, "k")],
            value: op,
          })),
        })),
    );
    ok(results.every((r) => r.ok));
    deepEqual(sizes, [1, 2, 2, 1]);
  } finally {
    kv.close();
  }
});

Deno.test("Idempotency claims on a KV file: of concurrent claims of one key exactly one wins, beside other keys' claims (spec 2, 4.3)", async () => {
  const dir = await Deno.makeTempDir();
  const kv = await openKvStore(`${dir}/kv.sqlite3`);
  try {
    const store = new IdempotencyStore(kv);
    const options = {
      method: "POST",
      path: "/api/manage/v1/entries",
      bodyDigest: "d".repeat(64),
      retentionMs: 60_000,
    };
    const claims = await Promise.all([
      ...Array.from(
        { length: 6 },
        () => store.claim({ scope: ["c", "s"], key: "same" }, options),
      ),
      ...Array.from(
        { length: 6 },
        (_, i) =>
          store.claim({ scope: ["c", "s"], key: `other-${i}` }, options),
      ),
    ]);
    const same = claims.slice(0, 6);
    equal(same.filter((c) => c.ok && !c.replayed).length, 1);
    ok(
      same.every((c) =>
        (c.ok && !c.replayed) || (!c.ok && c.code === "idempotency_in_progress")
      ),
    );
    ok(claims.slice(6).every((c) => c.ok && !c.replayed));
    const won = same.find((c) => c.ok && !c.replayed);
    if (!won?.ok || won.replayed) throw new Error("no claim won");
    const answer = { status: 201, headers: {}, body: "{}" };
    deepEqual(await store.answer(won.claim, answer), { ok: true });
    const replay = await store.claim(
      { scope: ["c", "s"], key: "same" },
      options,
    );
    ok(replay.ok && replay.replayed);
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
