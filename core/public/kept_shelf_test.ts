// The shelf of kept public answers: one database state at a time, a reuse window, a memory budget.
import { deepEqual, equal } from "node:assert/strict";
import type { SerializedAnswer } from "./answer.ts";
import { KEPT_REUSE_MS, KeptAnswers, newer } from "./kept_shelf.ts";

/** Stores `kept` under `key` twice: a shelf keeps only a key asked for again. */
function keep(
  shelf: KeptAnswers,
  state: string,
  key: string,
  kept: SerializedAnswer,
  now: number,
): boolean {
  shelf.store(state, key, kept, now);
  return shelf.store(state, key, kept, now);
}

const answer = (text: string): SerializedAnswer => ({
  text,
  etag: `"${text}"`,
  cacheTag: "model:m",
});

Deno.test("KeptAnswers reuses an answer only for the same snapshot and key", () => {
  const shelf = new KeptAnswers(1024 * 1024);
  keep(shelf, "10:12:10", "a", answer("one"), 0);
  equal(shelf.lookup("10:12:10", "a", 0)?.text, "one");
  equal(shelf.lookup("10:12:10", "b", 0), null);
  equal(shelf.lookup("10:12:", "a", 0), null, "another snapshot");
  equal(shelf.lookup("10:13:10", "a", 0), null);
  deepEqual([shelf.hits, shelf.misses], [1, 3]);
});

Deno.test(`KeptAnswers reuses an answer up to ${KEPT_REUSE_MS} ms after it was computed, never before`, () => {
  const shelf = new KeptAnswers(1024 * 1024);
  keep(shelf, "1:1:", "a", answer("x"), 1_000);
  equal(shelf.lookup("1:1:", "a", 1_000 + KEPT_REUSE_MS)?.text, "x");
  equal(shelf.lookup("1:1:", "a", 1_000 + KEPT_REUSE_MS + 1), null);
  equal(shelf.lookup("1:1:", "a", 1_000), null, "dropped once too old");
  keep(shelf, "1:1:", "b", answer("y"), 5_000);
  equal(shelf.lookup("1:1:", "b", 4_999), null, "a clock set back");
});

Deno.test("KeptAnswers starts over for a newer snapshot and ignores answers of an older one", () => {
  const shelf = new KeptAnswers(1024 * 1024);
  keep(shelf, "5:9:5,7", "a", answer("old"), 0);
  keep(shelf, "5:9:5", "b", answer("new"), 0);
  deepEqual(shelf.keys(), ["b"]);
  keep(shelf, "5:9:5,7", "a", answer("late"), 0);
  deepEqual(shelf.keys(), ["b"], "a straggler keeps nothing");
  keep(shelf, "9:10:", "c", answer("newest"), 0);
  deepEqual(shelf.keys(), ["c"]);
});

Deno.test("KeptAnswers keeps an answer of an eighth of the budget, not a character more, and evicts the oldest, sparing one reused since it was kept", () => {
  const budget = 8 * 4096;
  const shelf = new KeptAnswers(budget);
  const fitting = (key: string) => {
    const spare = budget / 8 - KeptAnswers.bytesOf(key, answer(""));
    return answer("x".repeat(spare / 2));
  };
  const big = fitting("a");
  equal(KeptAnswers.bytesOf("a", big), budget / 8);
  keep(shelf, "1:1:", "a", big, 0);
  deepEqual(shelf.keys(), ["a"]);
  const tooBig = answer(big.text + "x");
  keep(shelf, "1:1:", "z", tooBig, 0);
  deepEqual(shelf.keys(), ["a"]);
  for (const key of ["b", "c", "d", "e", "f", "g", "h"]) {
    keep(shelf, "1:1:", key, fitting(key), 0);
  }
  equal(shelf.keys().length, 8, "exactly the budget");
  shelf.lookup("1:1:", "a", 0);
  keep(shelf, "1:1:", "i", fitting("i"), 0);
  deepEqual(shelf.keys(), ["c", "d", "e", "f", "g", "h", "i", "a"]);
  keep(shelf, "1:1:", "j", fitting("j"), 0);
  deepEqual(
    shelf.keys(),
    ["d", "e", "f", "g", "h", "i", "a", "j"],
    "the oldest not reused goes next",
  );
});

Deno.test("newer() orders snapshots by next transaction id, then oldest running, then fewer running", () => {
  equal(newer("100:200:", "100:199:"), true);
  equal(newer("100:199:", "100:200:"), false);
  equal(newer("101:200:101", "100:200:100,101"), true);
  equal(newer("100:200:100", "100:200:100,150"), true);
  equal(newer("100:200:100,150", "100:200:100"), false);
  equal(newer("100:200:", "100:200:"), false);
  equal(newer("9:18446744073709551615:", "9:18446744073709551614:"), true);
});

Deno.test("KeptAnswers orders generations, and counts a reuse served elsewhere only for the very answer kept", () => {
  equal(newer("g10", "g9"), true);
  equal(newer("g9", "g10"), false);
  const shelf = new KeptAnswers(1024 * 1024);
  const kept = answer("one");
  keep(shelf, "g3", "a", kept, 0);
  equal(shelf.serveAgain("g3", "a", kept, KEPT_REUSE_MS), true);
  equal(shelf.serveAgain("g3", "a", answer("one"), 0), false, "another answer");
  equal(shelf.serveAgain("g4", "a", kept, 0), false, "another generation");
  equal(shelf.serveAgain("g3", "a", kept, KEPT_REUSE_MS + 1), false, "too old");
  equal(shelf.hits, 1);
  keep(shelf, "g2", "b", answer("late"), 0);
  deepEqual(shelf.keys(), ["a"], "an older generation keeps nothing");
});

Deno.test("KeptAnswers keeps an answer only when its key was asked for before, and remembers a key that aged out", () => {
  const shelf = new KeptAnswers(1024 * 1024);
  equal(shelf.store("g1", "once", answer("a"), 0), false, "asked for once");
  deepEqual(shelf.keys(), []);
  equal(shelf.store("g1", "once", answer("a"), 0), true, "asked for again");
  deepEqual(shelf.keys(), ["once"]);
  equal(shelf.lookup("g1", "once", KEPT_REUSE_MS + 1), null, "aged out");
  equal(shelf.store("g1", "once", answer("b"), KEPT_REUSE_MS + 1), true);
  equal(shelf.store("g2", "new", answer("c"), 0), false, "a new generation");
  equal(
    shelf.store("g2", "once", answer("d"), 0),
    false,
    "after a commit, kept again from its second request",
  );
});

Deno.test("a shelf whose lookups find under 5% hits is consulted by one read in 16 until a window of them finds hits again", () => {
  const shelf = new KeptAnswers(1_000_000);
  const consulted = (reads: number) =>
    Array.from({ length: reads }, () => shelf.consults()).filter(Boolean)
      .length;
  equal(consulted(100), 100);
  // A window of misses: from then on one read in 16 looks.
  for (let i = 0; i < KeptAnswers.WINDOW; i++) {
    equal(shelf.lookup("g1", `miss-${i}`, 0), null);
  }
  equal(consulted(16 * 10), 10);
  // A window with hits at the paying share brings every read back.
  const answer = { text: "{}", etag: '"e"', cacheTag: "" };
  shelf.store("g1", "hot", answer, 0);
  shelf.store("g1", "hot", answer, 0);
  const hits = Math.ceil(KeptAnswers.PAYING_HITS * KeptAnswers.WINDOW);
  for (let i = 0; i < KeptAnswers.WINDOW; i++) {
    shelf.lookup("g1", i < hits ? "hot" : `other-${i}`, 0);
  }
  equal(consulted(100), 100);
});
