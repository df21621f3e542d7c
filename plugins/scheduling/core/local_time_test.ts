// Spring-forward gaps and autumn folds in three zones, one of them with a 30-minute shift
// (spec 1 part 4.5 rule 6; SCH rows on invalid_instant, unknown_timezone, past_time).
import { deepEqual, equal } from "node:assert/strict";
import { resolveLocalTime } from "./local_time.ts";

const NOW = new Date("2026-01-01T00:00:00Z");

function iso(local: string, zone: string, fold: "earlier" | "later") {
  const r = resolveLocalTime(local, zone, fold, NOW);
  return r.ok ? { at: r.dueAt.toISOString(), adjusted: r.adjusted } : r.code;
}

Deno.test("a local time in a spring-forward gap resolves by the fold setting (Berlin, New York, Lord Howe) (SCH-031)", () => {
  // Berlin skips 02:00–03:00 on 29 March 2026.
  deepEqual(iso("2026-03-29T02:30", "Europe/Berlin", "earlier"), {
    at: "2026-03-29T00:30:00.000Z",
    adjusted: true,
  });
  deepEqual(iso("2026-03-29T02:30", "Europe/Berlin", "later"), {
    at: "2026-03-29T01:30:00.000Z",
    adjusted: true,
  });
  // New York skips 02:00–03:00 on 8 March 2026.
  deepEqual(iso("2026-03-08T02:15", "America/New_York", "later"), {
    at: "2026-03-08T07:15:00.000Z",
    adjusted: true,
  });
  // Lord Howe Island moves by 30 minutes: 02:00 becomes 02:30 on 4 October 2026.
  deepEqual(iso("2026-10-04T02:10", "Australia/Lord_Howe", "earlier"), {
    at: "2026-10-03T15:10:00.000Z",
    adjusted: true,
  });
  deepEqual(iso("2026-10-04T02:10", "Australia/Lord_Howe", "later"), {
    at: "2026-10-03T15:40:00.000Z",
    adjusted: true,
  });
});

Deno.test("a local time in an autumn fold names both instants, one per fold setting (SCH-031)", () => {
  // Berlin repeats 02:00–03:00 on 25 October 2026.
  deepEqual(iso("2026-10-25T02:30", "Europe/Berlin", "earlier"), {
    at: "2026-10-25T00:30:00.000Z",
    adjusted: true,
  });
  deepEqual(iso("2026-10-25T02:30", "Europe/Berlin", "later"), {
    at: "2026-10-25T01:30:00.000Z",
    adjusted: true,
  });
  // New York repeats 01:00–02:00 on 1 November 2026.
  deepEqual(iso("2026-11-01T01:30", "America/New_York", "earlier"), {
    at: "2026-11-01T05:30:00.000Z",
    adjusted: true,
  });
  deepEqual(iso("2026-11-01T01:30", "America/New_York", "later"), {
    at: "2026-11-01T06:30:00.000Z",
    adjusted: true,
  });
  // Lord Howe repeats 01:30–02:00 on 5 April 2026.
  deepEqual(iso("2026-04-05T01:45", "Australia/Lord_Howe", "earlier"), {
    at: "2026-04-04T14:45:00.000Z",
    adjusted: true,
  });
  deepEqual(iso("2026-04-05T01:45", "Australia/Lord_Howe", "later"), {
    at: "2026-04-04T15:15:00.000Z",
    adjusted: true,
  });
  // An ordinary time is not adjusted, whichever fold is chosen.
  deepEqual(iso("2026-06-01T09:00", "Asia/Kolkata", "later"), {
    at: "2026-06-01T03:30:00.000Z",
    adjusted: false,
  });
});

Deno.test("impossible dates, unknown zones and past times are refused by name (SCH-032)", () => {
  equal(iso("2026-02-30T10:00", "Europe/Berlin", "earlier"), "invalid_instant");
  equal(iso("2026-02-03 10:00", "Europe/Berlin", "earlier"), "invalid_instant");
  equal(iso("2026-02-03T24:00", "Europe/Berlin", "earlier"), "invalid_instant");
  equal(iso("2026-02-03T10:00", "Mars/Olympus", "earlier"), "unknown_timezone");
  equal(iso("2025-12-31T23:59", "UTC", "earlier"), "past_time");
  equal(iso("2026-01-01T00:00", "UTC", "earlier"), "past_time");
  deepEqual(iso("2026-01-01T00:01", "UTC", "earlier"), {
    at: "2026-01-01T00:01:00.000Z",
    adjusted: false,
  });
});
