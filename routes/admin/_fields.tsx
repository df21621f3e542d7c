// The entry editor's controls: one per field type, labelled, with hints, and the refusal beside the field.
import {
  componentRowsShown,
  type FieldControl,
  type RawValue,
} from "../../core/admin/entry_form.ts";
import type { RelationChoice } from "../../core/admin/editor.ts";
import RichTextField from "../../islands/RichTextField.tsx";
import { checkRichText } from "../../core/models/rich_text.ts";
import SlugField from "../../islands/SlugField.tsx";
import MediaPicker from "../../islands/MediaPicker.tsx";
import RelationPicker from "../../islands/RelationPicker.tsx";
import type { PickerItem } from "../../core/media/picker_items.ts";

/** Props of {@link FieldInput}. */
export interface FieldInputProps {
  control: FieldControl;
  value: RawValue;
  errors: string[];
  choices?: RelationChoice[];
  /** The id of the slug's source input, when the slug follows it. */
  sourceId?: string;
  /** True when the slug may still follow its source (a new entry or language). */
  autoFill?: boolean;
  /** What a media field's picker offers. */
  mediaItems?: PickerItem[];
  /** The language a single image field edits the chosen image's alt text in (null: not offered). */
  altLanguage?: string | null;
  /** Where relation pickers search for more entries (the model's `/choices` route). */
  choicesUrl?: string;
  /** A component field's: the relation choices of its items' fields, by full key. */
  itemChoices?: Record<string, RelationChoice[]>;
}

function text(value: RawValue): string {
  return Array.isArray(value) ? value.join(", ") : value;
}

function items(value: RawValue): string[] {
  return Array.isArray(value) ? value : value === "" ? [] : [value];
}

/** A media or gallery field: the library's picker (a select without script, thumbnails with it). */
export function MediaField(
  props: {
    control: FieldControl;
    value: RawValue;
    describedBy: string;
    invalid: boolean;
    items: PickerItem[];
    altLanguage?: string | null;
  },
) {
  const { control } = props;
  // One image chosen from the library: its alt text is asked for beside the choice and saved
  // on the library item, so every use of the image reads the same text.
  const altField = !control.multiple && !control.readOnly &&
      props.altLanguage &&
      (control.kinds.length === 0 || control.kinds.includes("image"))
    ? {
      name: `alt.${control.key}`,
      forName: `alt_for.${control.key}`,
      language: props.altLanguage,
    }
    : undefined;
  return (
    <MediaPicker
      id={`field-${control.key}`}
      name={`f.${control.key}`}
      label={control.label}
      hideLabel
      value={items(props.value)}
      items={props.items}
      {
        // Island props are plain JSON: no kinds means every kind, so the prop is left out.
        ...(control.kinds.length > 0
          ? { kinds: control.kinds as PickerItem["kind"][] }
          : {})
      }
      multiple={control.multiple}
      readOnly={control.readOnly}
      describedBy={props.describedBy}
      invalid={props.invalid}
      {...(altField ? { altField } : {})}
    />
  );
}

function Control(props: FieldInputProps & { describedBy: string }) {
  const { control, value, describedBy } = props;
  const id = `field-${control.key}`;
  const name = `f.${control.key}`;
  const invalid = props.errors.length > 0 ? "true" as const : undefined;
  const common = {
    id,
    name,
    "aria-describedby": describedBy || undefined,
    "aria-invalid": invalid,
  };
  const readOnly = control.readOnly;
  switch (control.type) {
    case "boolean":
      return (
        <span>
          <input type="hidden" name={`present.${control.key}`} value="1" />
          <input
            {...common}
            type="checkbox"
            value="true"
            checked={value === "true"}
            disabled={readOnly}
          />
        </span>
      );
    case "number":
      return (
        <input
          {...common}
          type="number"
          inputMode={control.integer ? "numeric" : "decimal"}
          step={control.step ?? (control.integer ? "1" : "any")}
          min={control.min}
          max={control.max}
          value={text(value)}
          readOnly={readOnly}
        />
      );
    case "date":
      return (
        <input
          {...common}
          type="date"
          min={control.min}
          max={control.max}
          value={text(value)}
          readOnly={readOnly}
        />
      );
    case "datetime":
      return (
        <input
          {...common}
          type="datetime-local"
          value={text(value)}
          readOnly={readOnly}
        />
      );
    case "select":
      return (
        <select
          {...common}
          multiple={control.multiple}
          disabled={readOnly}
          size={control.multiple
            ? Math.min(8, control.options.length)
            : undefined}
        >
          {!control.multiple && <option value="">—</option>}
          {control.options.map((o) => (
            <option
              key={o.value}
              value={o.value}
              selected={items(value).includes(o.value)}
            >
              {o.label}
            </option>
          ))}
        </select>
      );
    case "relation":
      return (
        <RelationPicker
          id={id}
          name={name}
          label={control.label}
          value={items(value)}
          options={props.choices ?? []}
          multiple={control.multiple}
          readOnly={readOnly}
          describedBy={describedBy}
          invalid={props.errors.length > 0}
          searchUrl={props.choicesUrl
            ? `${props.choicesUrl}?field=${encodeURIComponent(control.key)}`
            : undefined}
        />
      );
    case "media":
      return (
        <MediaField
          control={control}
          value={value}
          describedBy={describedBy}
          invalid={props.errors.length > 0}
          items={props.mediaItems ?? []}
          altLanguage={props.altLanguage}
        />
      );
    case "point": {
      const [lat, lon] = Array.isArray(value) ? value : ["", ""];
      return (
        <span class="buttons">
          <label for={`${id}-lat`}>Latitude</label>
          <input
            id={`${id}-lat`}
            name={`${name}.lat`}
            inputMode="decimal"
            value={lat}
            readOnly={readOnly}
            aria-describedby={describedBy}
            aria-invalid={invalid}
          />
          <label for={`${id}-lon`}>Longitude</label>
          <input
            id={`${id}-lon`}
            name={`${name}.lon`}
            inputMode="decimal"
            value={lon}
            readOnly={readOnly}
            aria-describedby={describedBy}
            aria-invalid={invalid}
          />
        </span>
      );
    }
    case "component":
      if (control.children) return <ComponentField {...props} />;
      return (
        <textarea {...common} rows={6} readOnly={readOnly} spellcheck={false}>
          {text(value)}
        </textarea>
      );
    case "json":
      return (
        <textarea {...common} rows={6} readOnly={readOnly} spellcheck={false}>
          {text(value)}
        </textarea>
      );
    case "rich_text":
      return (
        <RichText
          {...props}
          id={id}
          name={name}
          readOnly={readOnly}
          describedBy={describedBy}
        />
      );
    case "slug":
      return (
        <SlugField
          id={id}
          name={name}
          value={text(value)}
          readOnly={readOnly}
          describedBy={describedBy}
          invalid={props.errors.length > 0}
          sourceId={props.sourceId ?? ""}
          autoFill={props.autoFill ?? false}
        />
      );
    default: {
      const long = (control.maxLength ?? 0) > 300;
      return long
        ? (
          <textarea
            {...common}
            rows={4}
            maxLength={control.maxLength}
            readOnly={readOnly}
          >
            {text(value)}
          </textarea>
        )
        : (
          <input
            {...common}
            maxLength={control.maxLength}
            minLength={control.minLength}
            value={text(value)}
            readOnly={readOnly}
          />
        );
    }
  }
}

/**
 * A component field: each item a group of its own fields. A repeatable one offers a blank item to
 * fill in (one more after each save) and a box to remove each item, so it works without script.
 */
function ComponentField(props: FieldInputProps & { describedBy: string }) {
  const { control } = props;
  const children = control.children ?? [];
  const shown = componentRowsShown(control, props.value);
  return (
    <div
      class="component-items stack"
      role="group"
      aria-labelledby={`label-${control.key}`}
      aria-describedby={props.describedBy || undefined}
    >
      <input
        type="hidden"
        name={`f.${control.key}.rows`}
        value={String(shown.length)}
      />
      {shown.map((row, n) => {
        const fields = children.map((child) => {
          const key = `${control.key}.${n}.${child.key}`;
          return (
            <FieldInput
              key={child.key}
              control={{ ...child, key }}
              value={row?.[child.key] ?? (child.multiple ? [] : "")}
              errors={[]}
              choices={props.itemChoices?.[key]}
              mediaItems={props.mediaItems}
              choicesUrl={props.choicesUrl}
            />
          );
        });
        // A single component's fields sit in the group its label already names.
        if (!control.multiple) {
          return <div class="component-item card" key={n}>{fields}</div>;
        }
        return (
          <fieldset class="component-item card" key={n}>
            <legend>
              {row === null
                ? `New item of ${control.label}`
                : `${control.label}, item ${n + 1}`}
            </legend>
            {fields}
            {row !== null && !control.readOnly && (
              <label class="check">
                <input
                  type="checkbox"
                  name={`f.${control.key}.${n}.remove`}
                  value="1"
                />{" "}
                Remove this item when saving
              </label>
            )}
          </fieldset>
        );
      })}
    </div>
  );
}

/** One field: label (with required mark), control, hints and the refusal in words beside it. */
export function FieldInput(props: FieldInputProps) {
  const { control } = props;
  const hintId = `hint-${control.key}`;
  const errorId = `error-${control.key}`;
  const describedBy = [
    props.errors.length > 0 ? errorId : "",
    control.hints.length > 0 || control.readOnly ? hintId : "",
  ].filter(Boolean).join(" ") || undefined;
  const labelFor = control.type === "point"
    ? `field-${control.key}-lat`
    : `field-${control.key}`;
  const grouped = control.type === "point" ||
    (control.type === "component" && control.children !== undefined);
  return (
    <div class="field" data-field={control.key}>
      {grouped
        ? (
          <span class="label" id={`label-${control.key}`}>
            <strong>{control.label}</strong>
            {control.required && (
              <span class="required-mark" aria-hidden="true">*</span>
            )}
          </span>
        )
        : (
          <label for={labelFor}>
            {control.label}
            {control.required && (
              <span class="required-mark" aria-hidden="true">*</span>
            )}
          </label>
        )}
      {props.errors.length > 0 && (
        <p class="field-error" id={errorId}>
          {props.errors.join("; ")}
        </p>
      )}
      <Control {...props} describedBy={describedBy ?? ""} />
      {(control.hints.length > 0 || control.readOnly) && (
        <p class="hint" id={hintId}>
          {[
            ...(control.readOnly ? ["Read-only for your role"] : []),
            ...control.hints,
          ].join(" · ")}
        </p>
      )}
    </div>
  );
}

/**
 * A rich-text field. Where scripts run, the stored text shows formatted until the editor's
 * chunk takes over (the stylesheet hides the HTML source meanwhile); only text that passes the
 * rich-text rules is drawn as HTML, anything else stays source in the text area.
 */
function RichText(
  props: FieldInputProps & {
    id: string;
    name: string;
    readOnly: boolean;
    describedBy: string;
  },
) {
  const html = text(props.value);
  const formatted = html !== "" && checkRichText(html).problem === null;
  return (
    <div
      class="rich-text-field"
      data-formatted={formatted ? "" : undefined}
    >
      {formatted && (
        <div
          class="rich-text-formatted"
          dangerouslySetInnerHTML={{ __html: html }}
        />
      )}
      <RichTextField
        id={props.id}
        name={props.name}
        value={html}
        readOnly={props.readOnly}
        describedBy={props.describedBy}
        invalid={props.errors.length > 0}
        label={props.control.label}
      />
    </div>
  );
}
