// Dates as readers see them. A date formatter costs far more to make than to use (making one
// per date was half of a page's drawing time), so one is kept per language and style.

/** How a date is written: a full date ("28 November 2026"), a short one, or a month. */
export type DateStyle = "long" | "medium" | "month";

const OPTIONS: Record<DateStyle, Intl.DateTimeFormatOptions> = {
  long: { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" },
  medium: { dateStyle: "medium", timeZone: "UTC" },
  month: { year: "numeric", month: "long", timeZone: "UTC" },
};

const formatters = new Map<string, Intl.DateTimeFormat | null>();

function formatterFor(
  locale: string,
  style: DateStyle,
): Intl.DateTimeFormat | null {
  const key = `${style} ${locale}`;
  let formatter = formatters.get(key);
  if (formatter === undefined) {
    try {
      formatter = new Intl.DateTimeFormat(locale, OPTIONS[style]);
    } catch {
      // A language tag Intl does not take: no date is written rather than a failed page.
      formatter = null;
    }
    // Languages come from the site's settings: a few, yet never let the map grow unbounded.
    if (formatters.size >= 256) formatters.clear();
    formatters.set(key, formatter);
  }
  return formatter;
}

/** `value` (an ISO date or instant) written in `locale`; null when it is no date or Intl cannot write that language. */
export function formatDate(
  value: string,
  locale: string,
  style: DateStyle,
): string | null {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return null;
  return formatterFor(locale, style)?.format(date) ?? null;
}
