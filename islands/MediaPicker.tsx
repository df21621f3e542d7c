// This module is browser compatible.
// A reusable media picker for forms: a labelled select that works without script, enhanced with a filterable thumbnail grid.
import { useEffect, useState } from "preact/hooks";
import { island } from "../core/web/island.ts";

/** One library item the picker offers (build it with `pickerItems()` of core/media/picker_items.ts). */
export type MediaPickerItem = {
  id: string;
  /** Delivery URL; images show it as a thumbnail. */
  url: string;
  file_name: string;
  kind: "image" | "document" | "audio" | "video" | "file";
  /** Alt text in the editor's language, or null. */
  alt: string | null;
};

/**
 * Props (plain JSON):
 * - `name`: the form field the chosen media id is posted as (empty string: none).
 * - `label`: the visible label.
 * - `value`: the id chosen now, or null.
 * - `items`: the items to offer (e.g. the newest 100 of the accepted kinds).
 * - `kinds`: optional; only these kinds are offered (a media field's `config.kinds`).
 * - `required`: optional; no "None" choice.
 */
export type MediaPickerProps = {
  name: string;
  label: string;
  value: string | null;
  items: MediaPickerItem[];
  kinds?: MediaPickerItem["kind"][];
  required?: boolean;
};

export function MediaPicker(props: MediaPickerProps) {
  const offered = props.kinds
    ? props.items.filter((i) => props.kinds!.includes(i.kind))
    : props.items;
  const [value, setValue] = useState(props.value ?? "");
  const [filter, setFilter] = useState("");
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const id = `picker-${props.name}`;
  const shown = offered.filter((i) =>
    !filter ||
    `${i.file_name} ${i.alt ?? ""}`.toLowerCase().includes(filter.toLowerCase())
  );
  return (
    <div class="media-picker">
      <label for={id}>{props.label}</label>
      <select
        id={id}
        name={props.name}
        value={value}
        required={props.required}
        onChange={(e) => setValue((e.target as HTMLSelectElement).value)}
      >
        {!props.required && <option value="">None</option>}
        {offered.map((i) => (
          <option key={i.id} value={i.id}>{i.file_name}</option>
        ))}
      </select>
      {hydrated && (
        <div class="media-picker-grid-wrap">
          <label for={`${id}-filter`} class="muted">Filter by name</label>
          <input
            id={`${id}-filter`}
            type="search"
            value={filter}
            onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
          />
          <ul
            class="media-picker-grid"
            aria-label={`${props.label}: thumbnails`}
          >
            {shown.map((i) => (
              <li key={i.id}>
                <button
                  type="button"
                  aria-pressed={i.id === value ? "true" : "false"}
                  onClick={() =>
                    setValue(i.id === value && !props.required ? "" : i.id)}
                >
                  {i.kind === "image"
                    ? <img src={i.url} alt="" loading="lazy" />
                    : <span class="media-kind">{i.kind}</span>}
                  <span class="media-name">{i.file_name}</span>
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

export default island("MediaPicker", MediaPicker);
