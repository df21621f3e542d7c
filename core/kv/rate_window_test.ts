import { deepEqual, equal, rejects } from "node:assert/strict";
import { ManualClock } from "../clock.ts";
import { openKvStore } from "./open.ts";
import { RateWindow } from "./rate_window.ts";

const MINUTE = 60_000;

async function setup(start = "2026-03-01T12:00:00.000Z") {
  const kv = await openKvStore(null);
  const clock = new ManualClock(start);
  return { kv, clock, rate: new RateWindow(kv, { clock }) };
}

Deno.test("RateWindow.hit() allows the limit-th hit and refuses the next with the seconds left", async () => {
  const { kv, clock, rate } = await setup("2026-03-01T12:00:10.000Z");
  try {
    const resetAt = new Date("2026-03-01T12:01:00.000Z");
    for (let i = 1; i < 120; i++) {
      deepEqual(await rate.hit("cred-1", 120, MINUTE), {
        allowed: true,
        remaining: 120 - i,
        retryAfterSeconds: 0,
        resetAt,
      });
    }
    deepEqual(await rate.hit("cred-1", 120, MINUTE), {
      allowed: true,
      remaining: 0,
      retryAfterSeconds: 0,
      resetAt,
    });
    clock.advance(200);
    deepEqual(await rate.hit("cred-1", 120, MINUTE), {
      allowed: false,
      remaining: 0,
      retryAfterSeconds: 50, // 49.8 s left, rounded up
      resetAt,
    });
  } finally {
    kv.close();
  }
});

Deno.test("RateWindow.hit() aligns windows to the epoch and resets in a new window", async () => {
  const { kv, clock, rate } = await setup("2026-03-01T12:00:59.000Z");
  try {
    equal((await rate.hit("k", 1, MINUTE)).allowed, true);
    equal((await rate.hit("k", 1, MINUTE)).allowed, false);
    clock.set("2026-03-01T12:00:59.999Z");
    deepEqual(await rate.hit("k", 1, MINUTE), {
      allowed: false,
      remaining: 0,
      retryAfterSeconds: 1, // 1 ms left still answers at least one second
      resetAt: new Date("2026-03-01T12:01:00.000Z"),
    });
    clock.set("2026-03-01T12:01:00.000Z");
    deepEqual(await rate.hit("k", 1, MINUTE), {
      allowed: true,
      remaining: 0,
      retryAfterSeconds: 0,
      resetAt: new Date("2026-03-01T12:02:00.000Z"),
    });
  } finally {
    kv.close();
  }
});

Deno.test("RateWindow.hit() does not count refused hits", async () => {
  const { kv, clock, rate } = await setup();
  try {
    await rate.hit("k", 2, MINUTE);
    await rate.hit("k", 2, MINUTE);
    for (let i = 0; i < 5; i++) {
      equal((await rate.hit("k", 2, MINUTE)).allowed, false);
    }
    clock.advance(MINUTE);
    equal((await rate.hit("k", 2, MINUTE)).remaining, 1);
  } finally {
    kv.close();
  }
});

Deno.test("RateWindow.hit() keeps keys apart, including array keys", async () => {
  const { kv, rate } = await setup();
  try {
    equal((await rate.hit(["cred", "a"], 1, MINUTE)).allowed, true);
    equal((await rate.hit(["cred", "a"], 1, MINUTE)).allowed, false);
    equal((await rate.hit(["cred", "b"], 1, MINUTE)).allowed, true);
    equal((await rate.hit("a", 1, MINUTE)).allowed, true);
  } finally {
    kv.close();
  }
});

Deno.test("RateWindow.hit() never loses a count under concurrent hits", async () => {
  const { kv, rate } = await setup();
  try {
    const results = await Promise.all(
      Array.from({ length: 30 }, () => rate.hit("k", 20, MINUTE)),
    );
    equal(results.filter((r) => r.allowed).length, 20);
    deepEqual(
      results.filter((r) => r.allowed).map((r) => r.remaining).sort((a, b) =>
        a - b
      ),
      [
        ...Array(20).keys(),
      ],
    );
    const counted = await Promise.all(
      Array.from({ length: 25 }, () => rate.hit("j", 1000, MINUTE)),
    );
    equal(counted.every((r) => r.allowed), true);
    equal((await rate.hit("j", 1000, MINUTE)).remaining, 1000 - 26);
  } finally {
    kv.close();
  }
});

Deno.test("RateWindow.hit() refuses every hit with limit 0 and throws for a bad limit or window", async () => {
  const { kv, rate } = await setup();
  try {
    equal((await rate.hit("k", 0, MINUTE)).allowed, false);
    await rejects(rate.hit("k", -1, MINUTE), RangeError);
    await rejects(rate.hit("k", 1.5, MINUTE), RangeError);
    await rejects(rate.hit("k", 1, 0), RangeError);
  } finally {
    kv.close();
  }
});
