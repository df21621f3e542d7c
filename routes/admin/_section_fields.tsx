// The controls of a page section's form: inputs by kind, nested groups and lists of rows.
import type {
  FormNode,
  GroupNode,
  InputNode,
} from "../../core/admin/page_sections.ts";
import type { PickerItem } from "../../core/media/picker_items.ts";
import MediaPicker from "../../islands/MediaPicker.tsx";

function controlId(name: string): string {
  return `sf-${name.replace(/[^A-Za-z0-9_-]/g, "-")}`;
}

function Input(
  props: { node: InputNode; media: PickerItem[] },
) {
  const { node } = props;
  const id = controlId(node.name);
  const described = [
    node.hint ? `${id}-hint` : "",
    node.error ? `${id}-error` : "",
  ].filter((x) => x !== "").join(" ") || undefined;
  const common = {
    id,
    name: node.name,
    "aria-describedby": described,
    "aria-invalid": node.error ? "true" as const : undefined,
    "aria-required": node.required ? "true" as const : undefined,
    "data-preview": node.preview,
  };
  let control;
  switch (node.control) {
    case "textarea":
      control = (
        <textarea {...common} rows={node.name.endsWith("paragraphs") ? 8 : 3}>
          {node.value}
        </textarea>
      );
      break;
    case "number":
      control = (
        <input
          {...common}
          type="number"
          inputMode="numeric"
          step="1"
          min={node.min}
          max={node.max}
          value={node.value}
        />
      );
      break;
    case "checkbox":
      control = (
        <input
          {...common}
          type="checkbox"
          value="on"
          checked={node.value !== ""}
        />
      );
      break;
    case "select":
      control = (
        <select {...common}>
          {(node.options ?? []).map((o) => (
            <option
              key={o.value}
              value={o.value}
              selected={o.value === node.value}
            >
              {o.label}
            </option>
          ))}
        </select>
      );
      break;
    case "media":
      control = (
        <MediaPicker
          id={id}
          name={node.name}
          label={node.label}
          hideLabel
          value={node.value === "" ? null : node.value}
          items={props.media}
          kinds={["image"]}
          required={node.required}
          describedBy={described}
          invalid={node.error !== undefined}
        />
      );
      break;
    default:
      control = (
        <input
          {...common}
          type="text"
          maxLength={node.max}
          value={node.value}
        />
      );
  }
  if (node.control === "checkbox") {
    return (
      <div class="field">
        <label class="check" for={id}>
          {control} {node.label}
        </label>
        {node.error && (
          <p class="field-error" id={`${id}-error`}>{node.error}</p>
        )}
      </div>
    );
  }
  return (
    <div class="field">
      <label for={id}>
        {node.label}
        {node.required && (
          <span class="required-mark" aria-hidden="true">*</span>
        )}
      </label>
      {control}
      {node.hint && <p class="hint" id={`${id}-hint`}>{node.hint}</p>}
      {node.error && <p class="field-error" id={`${id}-error`}>{node.error}</p>}
    </div>
  );
}

function Group(props: { node: GroupNode; media: PickerItem[] }) {
  const { node } = props;
  const id = controlId(node.name);
  return (
    <fieldset
      class={`section-group${node.list ? " section-list-field" : ""}`}
      aria-describedby={[
        node.hint ? `${id}-hint` : "",
        node.error ? `${id}-error` : "",
      ].filter((x) => x !== "").join(" ") || undefined}
    >
      <legend>{node.label}</legend>
      {node.hint && <p class="hint" id={`${id}-hint`}>{node.hint}</p>}
      {node.error && <p class="field-error" id={`${id}-error`}>{node.error}</p>}
      {node.list && (
        <input
          type="hidden"
          name={`${node.name}.count`}
          value={String(node.list.count)}
        />
      )}
      <Nodes nodes={node.children} media={props.media} />
      {node.removable && (
        <label class="check">
          <input type="checkbox" name={`${node.name}._remove`} value="1" />{" "}
          Remove this {node.label.startsWith("Field") ? "field" : "item"}{" "}
          when saving
        </label>
      )}
      {node.list && (
        <div class="buttons">
          {node.list.adds.map((a) => (
            <button
              key={a.value}
              type="submit"
              class="secondary"
              name="action"
              value={`add_row:${node.name}:${a.value}`}
              formnovalidate
            >
              {a.label}
            </button>
          ))}
        </div>
      )}
    </fieldset>
  );
}

/** The controls of a section form, nested groups and lists included. */
export function Nodes(props: { nodes: FormNode[]; media: PickerItem[] }) {
  return (
    <>
      {props.nodes.map((n) =>
        n.node === "input"
          ? <Input key={n.name} node={n} media={props.media} />
          : <Group key={n.name} node={n} media={props.media} />
      )}
    </>
  );
}
