// This module is browser compatible.
// A reusable media picker for forms: a labelled select that works without script; with script the
// select gives way to a filterable thumbnail grid (one visible control for the choice, the select
// still posting it), where each image shows its alt text in the editor's language.
import { useEffect, useState } from "preact/hooks";
import { variantSrcset, variantUrl } from "../core/media/variant_url.ts";
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
 * - `name`: the form field the chosen media ids are posted as (empty string: none).
 * - `label`: the visible label (or, with `hideLabel`, the grid's accessible name: the page labels the select).
 * - `value`: the id chosen now (or ids, with `multiple`), or null.
 * - `items`: the items to offer (e.g. the newest 100 of the accepted kinds, and those chosen now).
 * - `kinds`: optional; only these kinds are offered (a media field's `config.kinds`).
 * - `required`: optional; no "None" choice.
 * - `multiple`: optional; several may be chosen (a gallery). The chosen ones come first, in
 *   their order, so a save keeps the order; newly chosen ones follow.
 * - `id`, `hideLabel`, `describedBy`, `invalid`, `readOnly`: optional; for a page that
 *   renders the label, hints and refusal itself (the entry editor).
 * - `altField`: optional, one image only; a text field for the chosen image's alt text in
 *   `language`, posted as `name`, with the id it was shown for posted as `forName` (so a choice
 *   changed without script never gives the new image the old one's text).
 */
export type MediaPickerProps = {
  name: string;
  label: string;
  value: string | string[] | null;
  items: MediaPickerItem[];
  kinds?: MediaPickerItem["kind"][];
  required?: boolean;
  multiple?: boolean;
  id?: string;
  hideLabel?: boolean;
  describedBy?: string;
  invalid?: boolean;
  readOnly?: boolean;
  altField?: { name: string; forName: string; language: string };
};

function listOf(value: MediaPickerProps["value"]): string[] {
  if (value === null) return [];
  return (Array.isArray(value) ? value : [value]).filter((v) => v !== "");
}

export function MediaPicker(props: MediaPickerProps) {
  const initial = listOf(props.value);
  const accepted = props.kinds
    ? props.items.filter((i) =>
      props.kinds!.includes(i.kind) || initial.includes(i.id)
    )
    : props.items;
  // Chosen items first, in their stored order: a multiple select posts in option order.
  const offered = [
    ...initial.map((id) => accepted.find((i) => i.id === id)).filter((
      i,
    ): i is MediaPickerItem => i !== undefined),
    ...accepted.filter((i) => !initial.includes(i.id)),
  ];
  const [chosen, setChosen] = useState<string[]>(initial);
  const altOf = (itemId: string | undefined) =>
    offered.find((i) => i.id === itemId)?.alt ?? "";
  // The alt text shown, and the image it belongs to: a new choice shows that image's text.
  const [alt, setAlt] = useState({
    for: initial[0] ?? "",
    text: altOf(initial[0]),
  });
  const altChosen = chosen[0] ?? "";
  if (props.altField && alt.for !== altChosen) {
    setAlt({ for: altChosen, text: altOf(altChosen) });
  }
  const chosenIsImage = offered.find((i) => i.id === altChosen)?.kind ===
    "image";
  const [filter, setFilter] = useState("");
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const id = props.id ?? `picker-${props.name}`;
  const shown = offered.filter((i) =>
    !filter ||
    `${i.file_name} ${i.alt ?? ""}`.toLowerCase().includes(filter.toLowerCase())
  );
  const toggle = (itemId: string) => {
    if (props.multiple) {
      setChosen(
        chosen.includes(itemId)
          ? chosen.filter((c) => c !== itemId)
          : [...chosen, itemId],
      );
    } else {
      setChosen(
        chosen[0] === itemId && !props.required ? [] : [itemId],
      );
    }
  };
  return (
    <div class="media-picker">
      {!props.hideLabel && <label for={id}>{props.label}</label>}
      <select
        id={id}
        name={props.name}
        hidden={hydrated && !props.readOnly}
        multiple={props.multiple}
        size={props.multiple
          ? Math.min(Math.max(offered.length, 2), 6)
          : undefined}
        required={props.required}
        disabled={props.readOnly}
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
        {!props.required && !props.multiple && <option value="">None</option>}
        {offered.map((i) => (
          <option key={i.id} value={i.id} selected={chosen.includes(i.id)}>
            {i.file_name}
          </option>
        ))}
      </select>
      {hydrated && !props.readOnly && (
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
            {!props.required && !props.multiple && (
              <li>
                <button
                  type="button"
                  aria-pressed={chosen.length === 0 ? "true" : "false"}
                  onClick={() => setChosen([])}
                >
                  <span class="media-kind">none</span>
                  <span class="media-name">No {props.label.toLowerCase()}</span>
                </button>
              </li>
            )}
            {shown.map((i) => (
              <li key={i.id}>
                <button
                  type="button"
                  aria-pressed={chosen.includes(i.id) ? "true" : "false"}
                  onClick={() => toggle(i.id)}
                >
                  {i.kind === "image"
                    ? (
                      <img
                        src={variantUrl(i.url, 160)}
                        srcset={variantSrcset(i.url, 160)}
                        alt=""
                        loading="lazy"
                      />
                    )
                    : <span class="media-kind">{i.kind}</span>}
                  <span class="media-name">{i.file_name}</span>
                  {i.kind === "image" && (
                    <span class="media-alt">
                      {i.alt ? `Alt text: ${i.alt}` : "No alt text"}
                    </span>
                  )}
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      {props.altField && (altChosen === "" || chosenIsImage) && (
        <div class="media-picker-alt">
          <input type="hidden" name={props.altField.forName} value={alt.for} />
          <label for={`${id}-alt`}>
            Alt text of the chosen image ({props.altField.language})
          </label>
          <input
            id={`${id}-alt`}
            name={props.altField.name}
            maxLength={1000}
            value={alt.text}
            disabled={altChosen === ""}
            aria-describedby={`${id}-alt-hint`}
            onInput={(e) =>
              setAlt({
                for: alt.for,
                text: (e.target as HTMLInputElement).value,
              })}
          />
          <p id={`${id}-alt-hint`} class="hint">
            Describes the image to people who cannot see it. It is saved on the
            image in the library, so every use of the image shows it.
          </p>
        </div>
      )}
    </div>
  );
}

export default island("MediaPicker", MediaPicker);
