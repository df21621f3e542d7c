// Shows the UTC instant a local date, time and zone resolve to, as the person types. The server
// resolves it again on submit (Temporal); this only previews, and the form works without it.
function offsetMs(zone, instant) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    }).formatToParts(new Date(instant)).map((p) => [p.type, p.value]),
  );
  const asUtc = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return asUtc - Math.floor(instant / 1000) * 1000;
}

// The instant a wall-clock time names in a zone; in a gap or a fold, `fold` picks one.
function resolve(local, zone, fold) {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local);
  if (!m) return null;
  const wall = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5]);
  const before = offsetMs(zone, wall - 86_400_000 / 2);
  const after = offsetMs(zone, wall + 86_400_000 / 2);
  const valid = [wall - before, wall - after].filter((t) =>
    t + offsetMs(zone, t) === wall
  );
  if (valid.length === 0) {
    return fold === "earlier" ? wall - after : wall - before;
  }
  return fold === "earlier" ? Math.min(...valid) : Math.max(...valid);
}

// A new schedule starts in the person's own time zone (their browser's), not UTC, when the
// server had no choice of theirs to keep.
for (const select of document.querySelectorAll("select[data-guess-zone]")) {
  const own = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if ([...select.options].some((o) => o.value === own)) select.value = own;
}

for (const form of document.querySelectorAll("form[data-time-preview]")) {
  const output = form.querySelector("output");
  const update = () => {
    const local = form.elements.namedItem("local")?.value ?? "";
    const zone = form.elements.namedItem("timezone")?.value ?? "UTC";
    const fold = form.querySelector('input[name="fold"]:checked')?.value ??
      "later";
    let instant = null;
    try {
      instant = resolve(local, zone, fold);
    } catch {
      instant = null;
    }
    output.textContent = instant === null
      ? "Choose a date and time to see when it runs in UTC."
      : `Runs at ${
        new Date(instant).toISOString().slice(0, 16).replace("T", " ")
      } UTC`;
  };
  form.addEventListener("input", update);
  form.addEventListener("change", update);
  update();
}
