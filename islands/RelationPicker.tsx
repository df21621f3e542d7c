// This module is browser compatible.
// A relation or tag picker: a labelled select (one or several) that works without script, enhanced
// with a search that narrows the list and finds entries beyond the ones listed.
import { useEffect, useRef, useState } from "preact/hooks";
import { island } from "../core/web/island.ts";

/** One entry the picker offers. */
export type RelationOption = { value: string; label: string };

/**
 * Props (plain JSON):
 * - `id`, `name`, `label`: the select's id, form name, and the field's label (the page renders the label).
 * - `value`: the values chosen now; `options`: what is listed before a search.
 * - `multiple`, `readOnly`, `describedBy`, `invalid`: as the field says.
 * - `searchUrl`: where to look for more (`?q=` is added); absent searches only the list.
 */
export type RelationPickerProps = {
  id: string;
  name: string;
  label: string;
  value: string[];
  options: RelationOption[];
  multiple?: boolean;
  readOnly?: boolean;
  describedBy?: string;
  invalid?: boolean;
  searchUrl?: string;
};

/** Milliseconds of quiet after typing before the service is asked. */
const SEARCH_QUIET_MS = 250;

export function RelationPicker(props: RelationPickerProps) {
  const [chosen, setChosen] = useState<string[]>(props.value);
  const [options, setOptions] = useState<RelationOption[]>(() => {
    const known = new Set(props.options.map((o) => o.value));
    return [
      ...props.value.filter((v) => !known.has(v)).map((v) => ({
        value: v,
        label: v,
      })),
      ...props.options,
    ];
  });
  const [q, setQ] = useState("");
  const [found, setFound] = useState<string>("");
  const [hydrated, setHydrated] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout>>();
  useEffect(() => setHydrated(true), []);
  const words = q.trim().toLowerCase();
  const shown = options.filter((o) =>
    chosen.includes(o.value) || words === "" ||
    o.label.toLowerCase().includes(words)
  );
  const search = (text: string) => {
    setQ(text);
    clearTimeout(timer.current);
    if (!props.searchUrl || text.trim().length < 2) {
      setFound("");
      return;
    }
    timer.current = setTimeout(async () => {
      try {
        const url = `${props.searchUrl}&q=${encodeURIComponent(text.trim())}`;
        const answer = await (await fetch(url, {
          headers: { accept: "application/json" },
          credentials: "same-origin",
        })).json() as { choices: RelationOption[] };
        setOptions((now) => {
          const known = new Set(now.map((o) => o.value));
          return [
            ...now,
            ...answer.choices.filter((c) => !known.has(c.value)),
          ];
        });
        setFound(
          `${answer.choices.length} ${
            answer.choices.length === 1 ? "entry" : "entries"
          } found`,
        );
      } catch {
        setFound("Searching failed: the list shows what was loaded");
      }
    }, SEARCH_QUIET_MS);
  };
  return (
    <div class="relation-picker">
      {hydrated && !props.readOnly && (
        <p class="relation-search">
          <label for={`${props.id}-search`} class="muted">
            Find {props.label.toLowerCase()}
          </label>
          <input
            id={`${props.id}-search`}
            type="search"
            value={q}
            autocomplete="off"
            onInput={(e) => search((e.target as HTMLInputElement).value)}
          />
          <span class="muted" role="status" aria-live="polite">{found}</span>
        </p>
      )}
      <select
        id={props.id}
        name={props.name}
        multiple={props.multiple}
        disabled={props.readOnly}
        size={props.multiple ? Math.min(8, shown.length + 1) : undefined}
        aria-describedby={props.describedBy || undefined}
        aria-invalid={props.invalid ? "true" : undefined}
        onChange={(e) => {
          const select = e.target as HTMLSelectElement;
          setChosen(
            [...select.selectedOptions].map((o) => o.value).filter((v) =>
              v !== ""
            ),
          );
        }}
      >
        {!props.multiple && <option value="">—</option>}
        {shown.map((o) => (
          <option
            key={o.value}
            value={o.value}
            selected={chosen.includes(o.value)}
          >
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

export default island("RelationPicker", RelationPicker);
