import { equal } from "node:assert/strict";
import {
  type Every,
  type MemoryTrimmer,
  openMemoryTrimmer,
  startMemoryTrim,
} from "./memory_trim.ts";

/** An Every driven by the test: `tick()` runs what was scheduled, as the interval would. */
function handDriven() {
  const runs: (() => void)[] = [];
  let stopped = 0;
  let ms = 0;
  const every: Every = (run, interval) => {
    runs.push(run);
    ms = interval;
    return () => {
      stopped++;
      runs.splice(runs.indexOf(run), 1);
    };
  };
  return {
    every,
    tick: () => runs.forEach((run) => run()),
    scheduled: () => runs.length,
    interval: () => ms,
    stopped: () => stopped,
  };
}

/** A trimmer counting its calls and closes. */
function countingTrimmer(available = true) {
  const counts = { trims: 0, closes: 0 };
  const trimmer: MemoryTrimmer = {
    available,
    trim: () => {
      counts.trims++;
      return Promise.resolve(true);
    },
    close: () => {
      counts.closes++;
    },
  };
  return { trimmer, counts };
}

Deno.test("openMemoryTrimmer() reaches glibc's malloc_trim on glibc Linux and calls it", async () => {
  const glibc = Deno.build.os === "linux" && Deno.build.env === "gnu";
  const trimmer = openMemoryTrimmer();
  equal(trimmer.available, glibc);
  if (!glibc) return;
  // Two at once share one call; the answer is malloc_trim's own (whether it released pages).
  const [first, second] = await Promise.all([trimmer.trim(), trimmer.trim()]);
  equal(typeof first, "boolean");
  equal(first, second);
  trimmer.close();
  equal(await trimmer.trim(), false, "a closed trimmer trims nothing");
});

Deno.test("openMemoryTrimmer() of a library that cannot load is unavailable and trims nothing", async () => {
  const trimmer = openMemoryTrimmer("libstave-no-such-library.so");
  equal(trimmer.available, false);
  equal(await trimmer.trim(), false);
  trimmer.close();
});

Deno.test("startMemoryTrim() trims once per interval until stopped, then closes the library", () => {
  const clock = handDriven();
  const { trimmer, counts } = countingTrimmer();
  const stop = startMemoryTrim(10, { trimmer, every: clock.every });
  equal(clock.interval(), 10_000);
  equal(counts.trims, 0, "nothing trims before the first interval");
  clock.tick();
  clock.tick();
  equal(counts.trims, 2);
  stop();
  equal(clock.stopped(), 1);
  equal(clock.scheduled(), 0);
  equal(counts.closes, 1);
});

Deno.test("startMemoryTrim() schedules nothing for 0 seconds or where no trim call exists", () => {
  for (const [seconds, available] of [[0, true], [10, false]] as const) {
    const clock = handDriven();
    const { trimmer, counts } = countingTrimmer(available);
    const stop = startMemoryTrim(seconds, { trimmer, every: clock.every });
    equal(clock.scheduled(), 0);
    stop();
    equal(counts.trims, 0);
  }
});
