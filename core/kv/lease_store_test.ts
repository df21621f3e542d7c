import { deepEqual, equal, ok } from "node:assert/strict";
import { ManualClock } from "../clock.ts";
import { LeaseStore } from "./lease_store.ts";
import { openKvStore } from "./open.ts";

const TTL = 60_000;

async function setup() {
  const kv = await openKvStore(null);
  const clock = new ManualClock("2026-03-01T12:00:00.000Z");
  return { kv, clock, leases: new LeaseStore(kv, { clock }) };
}

Deno.test("LeaseStore.take() takes a free lease until now + ttl", async () => {
  const { kv, clock, leases } = await setup();
  try {
    const taken = await leases.take("tick", "a", TTL);
    ok(taken.ok);
    equal(taken.renewed, false);
    deepEqual(taken.lease, {
      name: "tick",
      owner: "a",
      takenAt: clock.now(),
      expiresAt: new Date(clock.now().getTime() + TTL),
    });
    deepEqual(await leases.get("tick"), taken.lease);
  } finally {
    kv.close();
  }
});

Deno.test("LeaseStore.take() refuses another owner until the lease expires", async () => {
  const { kv, clock, leases } = await setup();
  try {
    const start = clock.now().getTime();
    await leases.take("tick", "a", TTL);
    clock.advance(TTL - 1);
    deepEqual(await leases.take("tick", "b", TTL), {
      ok: false,
      code: "lease_held",
      owner: "a",
      expiresAt: new Date(start + TTL),
    });
    equal((await leases.get("tick"))?.owner, "a");
    clock.advance(1);
    equal(await leases.get("tick"), null);
    const taken = await leases.take("tick", "b", TTL);
    ok(taken.ok);
    equal(taken.renewed, false);
    equal(taken.lease.owner, "b");
    deepEqual(taken.lease.takenAt, new Date(start + TTL));
  } finally {
    kv.close();
  }
});

Deno.test("LeaseStore.take() renews for the same owner, keeping takenAt", async () => {
  const { kv, clock, leases } = await setup();
  try {
    const start = clock.now();
    await leases.take("tick", "a", TTL);
    clock.advance(TTL - 1);
    const renewed = await leases.take("tick", "a", TTL);
    ok(renewed.ok);
    equal(renewed.renewed, true);
    deepEqual(renewed.lease.takenAt, start);
    deepEqual(renewed.lease.expiresAt, new Date(clock.now().getTime() + TTL));
    clock.advance(TTL - 1);
    equal((await leases.take("tick", "b", TTL)).ok, false);
  } finally {
    kv.close();
  }
});

Deno.test("LeaseStore.take() after its own lease expired is a new take, not a renewal", async () => {
  const { kv, clock, leases } = await setup();
  try {
    await leases.take("tick", "a", TTL);
    clock.advance(TTL);
    const again = await leases.take("tick", "a", TTL);
    ok(again.ok);
    equal(again.renewed, false);
    deepEqual(again.lease.takenAt, clock.now());
  } finally {
    kv.close();
  }
});

Deno.test("LeaseStore.take() lets exactly one of concurrent takers win", async () => {
  const { kv, leases } = await setup();
  try {
    const owners = Array.from({ length: 10 }, (_, i) => `worker-${i}`);
    const results = await Promise.all(
      owners.map((owner) => leases.take("tick", owner, TTL)),
    );
    const winners = results.filter((r) => r.ok);
    equal(winners.length, 1);
    const winner = winners[0].ok ? winners[0].lease.owner : "";
    for (const r of results) if (!r.ok) equal(r.owner, winner);
    equal((await leases.get("tick"))?.owner, winner);
  } finally {
    kv.close();
  }
});

Deno.test("LeaseStore.take() keeps names apart", async () => {
  const { kv, leases } = await setup();
  try {
    ok((await leases.take("schedule:1", "a", TTL)).ok);
    ok((await leases.take("schedule:2", "b", TTL)).ok);
  } finally {
    kv.close();
  }
});

Deno.test("LeaseStore.release() frees the lease only for its owner", async () => {
  const { kv, leases } = await setup();
  try {
    await leases.take("tick", "a", TTL);
    deepEqual(await leases.release("tick", "b"), {
      ok: false,
      code: "lease_not_held",
      owner: "a",
    });
    equal((await leases.get("tick"))?.owner, "a");
    deepEqual(await leases.release("tick", "a"), { ok: true });
    equal(await leases.get("tick"), null);
    ok((await leases.take("tick", "b", TTL)).ok);
  } finally {
    kv.close();
  }
});

Deno.test("LeaseStore.release() answers lease_not_held once the lease expired or was taken over", async () => {
  const { kv, clock, leases } = await setup();
  try {
    await leases.take("tick", "a", TTL);
    clock.advance(TTL);
    deepEqual(await leases.release("tick", "a"), {
      ok: false,
      code: "lease_not_held",
      owner: null,
    });
    await leases.take("tick", "b", TTL);
    deepEqual(await leases.release("tick", "a"), {
      ok: false,
      code: "lease_not_held",
      owner: "b",
    });
    equal((await leases.get("tick"))?.owner, "b");
    deepEqual(await leases.release("never-taken", "a"), {
      ok: false,
      code: "lease_not_held",
      owner: null,
    });
  } finally {
    kv.close();
  }
});

Deno.test("LeaseStore.take() throws for a ttl that is not a positive integer", async () => {
  const { kv, leases } = await setup();
  try {
    for (const ttl of [0, -1, 1.5, NaN]) {
      let thrown: unknown;
      await leases.take("tick", "a", ttl).catch((e) => thrown = e);
      ok(thrown instanceof RangeError, `ttl ${ttl}`);
    }
    equal(await leases.get("tick"), null);
  } finally {
    kv.close();
  }
});
