// Published times as the public API writes them (`Date.prototype.toISOString`), from PostgreSQL's
// text of a `timestamptz` without building a `Date`: the driver's parse and `toISOString` cost
// about 2.4 us per item, a twentieth of a computed list page's CPU (docs/benchmarks.md).
import pg from "pg";

/** `timestamptz` text in PostgreSQL's ISO output, any session time zone, years 1 to 9999. */
const PG_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?([+-])(\d{2})(?::(\d{2}))?(?::(\d{2}))?$/;
const DAY_MS = 86_400_000;
const parseTimestamptz = pg.types.getTypeParser(1184, "text") as (
  text: string,
) => Date;

/**
 * The instant as `toISOString` writes it (milliseconds, `Z`), from a `Date` or PostgreSQL's text;
 * null stays null. The same string as the driver's `Date` would give, for every input.
 */
export function isoInstant(value: Date | string | null): string | null {
  if (value === null) return null;
  if (typeof value !== "string") return value.toISOString();
  // A session in UTC (the usual one) writes the very digits wanted: rearranged, not computed.
  if (
    value.endsWith("+00") && value.charCodeAt(0) !== 48 &&
    (value.length === 22 || (value.length > 23 && value[19] === "."))
  ) {
    // Three or more fraction digits (PostgreSQL writes microseconds): two slices, no padding.
    if (value.length >= 26) {
      return `${value.slice(0, 10)}T${value.slice(11, 23)}Z`;
    }
    return `${value.slice(0, 10)}T${value.slice(11, 19)}.${
      value.length === 22
        ? "000"
        : value.slice(20, Math.min(23, value.length - 3)).padEnd(3, "0")
    }Z`;
  }
  const m = PG_INSTANT.exec(value);
  if (!m) return parseTimestamptz(value).toISOString();
  const year = Number(m[1]);
  // Date.UTC reads years 0-99 as 1900-1999: such instants take the driver's path.
  if (year < 100) return parseTimestamptz(value).toISOString();
  const ms = m[7] === undefined
    ? 0
    : Math.floor(Number(m[7].padEnd(6, "0")) / 1000);
  const offset = (Number(m[9]) * 3600 + Number(m[10] ?? 0) * 60 +
    Number(m[11] ?? 0)) * 1000;
  const local = Date.UTC(
    year,
    Number(m[2]) - 1,
    Number(m[3]),
    Number(m[4]),
    Number(m[5]),
    Number(m[6]),
    ms,
  );
  return isoFromEpochMs(m[8] === "-" ? local + offset : local - offset);
}

/** `new Date(ms).toISOString()` for years 1000-9999, several times cheaper. */
export function isoFromEpochMs(ms: number): string {
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  // Civil date from days since 1970-01-01 (H. Hinnant's algorithm, proleptic Gregorian).
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) -
      Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  if (year < 1000 || year > 9999) return new Date(ms).toISOString();
  const hour = Math.floor(rest / 3_600_000);
  rest -= hour * 3_600_000;
  const minute = Math.floor(rest / 60_000);
  rest -= minute * 60_000;
  const second = Math.floor(rest / 1000);
  const milli = rest - second * 1000;
  return `${year}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}:${
    two(second)
  }.${milli < 10 ? "00" : milli < 100 ? "0" : ""}${milli}Z`;
}

function two(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}
