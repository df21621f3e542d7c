// Local date-time and IANA time zone to a whole UTC minute (spec 1 part 4.5 rule 6), through
// Temporal: no hand-written offset tables. A local time that falls in a spring-forward gap or
// an autumn fold is resolved by the fold setting: `earlier` takes the earlier of the two
// readings, `later` the later one.

/** How an ambiguous or nonexistent local time is read. */
export type Fold = "earlier" | "later";

/** A resolved time, or the refusal by name. */
export type ResolvedTime =
  | {
    ok: true;
    dueAt: Date;
    /** `YYYY-MM-DDTHH:MM` as the person chose it. */
    local: string;
    timezone: string;
    fold: Fold;
    /** The offset the instant has in the zone, e.g. `+01:00`. */
    offset: string;
    /** True when the local time did not exist or occurred twice. */
    adjusted: boolean;
  }
  | {
    ok: false;
    code: "invalid_instant" | "unknown_timezone" | "past_time";
    message: string;
  };

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

/** Whether `zone` is an IANA time zone this runtime knows. */
export function knownTimeZone(zone: string): boolean {
  if (zone.length === 0 || zone.length > 64) return false;
  try {
    Temporal.Now.zonedDateTimeISO(zone);
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves `local` in `timezone`. Refuses a malformed or impossible date-time
 * (`invalid_instant`), an unknown zone (`unknown_timezone`) and an instant not after `now`
 * (`past_time`).
 */
export function resolveLocalTime(
  local: string,
  timezone: string,
  fold: Fold,
  now: Date,
): ResolvedTime {
  if (!knownTimeZone(timezone)) {
    return {
      ok: false,
      code: "unknown_timezone",
      message: `"${timezone.slice(0, 64)}" is not a known time zone`,
    };
  }
  const m = LOCAL.exec(local);
  if (!m) {
    return {
      ok: false,
      code: "invalid_instant",
      message: "Give the date and time as YYYY-MM-DDTHH:MM",
    };
  }
  let plain: Temporal.PlainDateTime;
  try {
    plain = Temporal.PlainDateTime.from({
      year: Number(m[1]),
      month: Number(m[2]),
      day: Number(m[3]),
      hour: Number(m[4]),
      minute: Number(m[5]),
    }, { overflow: "reject" });
  } catch {
    return {
      ok: false,
      code: "invalid_instant",
      message: `${local} is not a date and time that exists`,
    };
  }
  const zoned = plain.toZonedDateTime(timezone, { disambiguation: fold });
  const possible = possibleCount(plain, timezone);
  const dueAt = new Date(zoned.epochMilliseconds);
  if (dueAt.getTime() <= now.getTime()) {
    return {
      ok: false,
      code: "past_time",
      message: "Choose a time in the future",
    };
  }
  return {
    ok: true,
    dueAt,
    local: `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}`,
    timezone,
    fold,
    offset: zoned.offset,
    adjusted: possible !== 1,
  };
}

// How many instants a local time names in a zone: 0 in a gap, 2 in a fold, else 1.
function possibleCount(plain: Temporal.PlainDateTime, zone: string): number {
  const earlier = plain.toZonedDateTime(zone, { disambiguation: "earlier" });
  const later = plain.toZonedDateTime(zone, { disambiguation: "later" });
  if (earlier.epochMilliseconds === later.epochMilliseconds) return 1;
  return earlier.toPlainDateTime().equals(plain) &&
      later.toPlainDateTime().equals(plain)
    ? 2
    : 0;
}

/** The local reading of an instant in a zone, `YYYY-MM-DD HH:MM`. */
export function localReading(instant: Date, timezone: string): string {
  const z = Temporal.Instant.fromEpochMilliseconds(instant.getTime())
    .toZonedDateTimeISO(timezone);
  return z.toPlainDateTime().toString({ smallestUnit: "minute" }).replace(
    "T",
    " ",
  );
}

/** The calendar day (`YYYY-MM-DD`) of an instant in a zone. */
export function localDay(instant: Date, timezone: string): string {
  return Temporal.Instant.fromEpochMilliseconds(instant.getTime())
    .toZonedDateTimeISO(timezone).toPlainDate().toString();
}
