import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { ManualClock } from "../clock.ts";
import { openKvStore } from "./open.ts";
import { RateWindow } from "./rate_window.ts";

const MINUTE = 60_000;

async function setup(start = "2026-03-01T12:00:00.000Z") {
  const kv = await openKvStore(null);
  const clock = new ManualClock(start);
  return { kv, clock, rate: new RateWindow(kv, { clock }) };
}

Deno.test("RateWindow.hit() allows the limit-th hit and refuses the next until the oldest hit is a window old", async () => {
  const { kv, clock, rate } = await setup("2026-03-01T12:00:10.000Z");
  try {
    const first = await rate.hit("cred-1", 120, MINUTE);
    deepEqual(first, {
      allowed: true,
      remaining: 119,
      retryAfterSeconds: 0,
      resetAt: new Date("2026-03-01T12:01:10.000Z"),
    });
    for (let i = 2; i <= 120; i++) {
      equal((await rate.hit("cred-1", 120, MINUTE)).remaining, 120 - i);
    }
    clock.advance(200);
    deepEqual(await rate.hit("cred-1", 120, MINUTE), {
      allowed: false,
      remaining: 0,
      retryAfterSeconds: 60, // 59.8 s until the first hit leaves the window, rounded up
      resetAt: new Date("2026-03-01T12:01:10.000Z"),
    });
    clock.set("2026-03-01T12:01:09.999Z");
    equal((await rate.hit("cred-1", 120, MINUTE)).retryAfterSeconds, 1);
    // All 120 were counted at 12:00:10.000, so all leave the window together.
    clock.set("2026-03-01T12:01:10.000Z");
    equal((await rate.hit("cred-1", 120, MINUTE)).remaining, 119);
  } finally {
    kv.close();
  }
});

Deno.test("RateWindow.hit() admits at most the limit in any span of the window, across minute boundaries", async () => {
  // A fixed window admitted 120 at 12:00:59 and 120 more at 12:01:00; a sliding one does not.
  const { kv, clock, rate } = await setup("2026-03-01T12:00:59.000Z");
  try {
    const admitted: number[] = [];
    for (let step = 0; step < 400; step++) {
      if ((await rate.hit("k", 120, MINUTE)).allowed) {
        admitted.push(clock.now().getTime());
      }
      clock.advance(250); // 4 tries per second for 100 s
    }
    for (const start of admitted) {
      const inSpan = admitted.filter((t) => t >= start && t < start + MINUTE);
      ok(inSpan.length <= 120, `${inSpan.length} admitted in one minute`);
    }
    ok(admitted.length >= 200, "the limit keeps admitting as hits age out");
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
      [...Array(20).keys()],
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
    await rejects(rate.hit("k", 4097, MINUTE), RangeError);
    await rejects(rate.hit("k", 1, 0), RangeError);
  } finally {
    kv.close();
  }
});

Deno.test("RateWindow.hit() keeps hits another process counted after this one read its clock", async () => {
  const { kv, clock, rate } = await setup("2026-03-01T12:00:10.000Z");
  try {
    equal((await rate.hit("k", 2, MINUTE)).allowed, true);
    // This process's clock reads a little earlier than the hit already stored.
    clock.set("2026-03-01T12:00:09.990Z");
    equal((await rate.hit("k", 2, MINUTE)).allowed, true);
    equal((await rate.hit("k", 2, MINUTE)).allowed, false, "both hits count");
  } finally {
    kv.close();
  }
});

Deno.test("RateWindow.hit() reads the log only when another writer changed it since its own last hit", async () => {
  const { kv, clock, rate } = await setup();
  let reads = 0;
  const get = kv.get.bind(kv);
  kv.get = ((...args: Parameters<typeof kv.get>) => {
    reads++;
    return get(...args);
  }) as typeof kv.get;
  try {
    equal((await rate.hit("k", 4, MINUTE)).remaining, 3);
    equal(reads, 1, "the first hit reads the log");
    equal((await rate.hit("k", 4, MINUTE)).remaining, 2);
    equal(reads, 1, "its own last write is checked, not read");
    // Another process admits a hit meanwhile: the check fails and the log is read.
    const stored = await get<number[]>(["rate-log", "k"]);
    const now = clock.now().getTime();
    await kv.set(["rate-log", "k"], [...stored.value!, now], {
      expireIn: MINUTE,
    });
    const third = await rate.hit("k", 4, MINUTE);
    equal(third.remaining, 0, "the other process's hit counts");
    equal(reads, 2);
    // Full by what it wrote itself: the refusal reads the log for its wait.
    clock.advance(1_000);
    const refused = await rate.hit("k", 4, MINUTE);
    equal(refused.allowed, false);
    equal(refused.retryAfterSeconds, 59);
    equal(reads, 3);
  } finally {
    kv.close();
  }
});
