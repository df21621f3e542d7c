// The settings of one field kind as form controls (core/admin/field_settings.ts), with the field's
// config and validation JSON kept as an advanced escape hatch for what the controls do not cover.
import {
  CARDINALITY_WORDS,
  MEDIA_KINDS,
  optionsText,
  RELATION_CARDINALITIES,
  type SettingControl,
  SETTINGS_OF,
} from "../../../core/admin/field_settings.ts";

/** A model a relation may link to. */
export interface TargetModel {
  id: string;
  name: string;
}

function parsed(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text || "{}");
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}

function Control(props: {
  prefix: string;
  control: SettingControl;
  value: unknown;
  models: readonly TargetModel[];
}) {
  const { control, value } = props;
  const name = `${props.prefix}.${control.in}.${control.key}`;
  const id = name.replaceAll(".", "-");
  const hint = control.hint && (
    <span id={`${id}-hint`} class="hint">{control.hint}</span>
  );
  const described = control.hint ? `${id}-hint` : undefined;
  switch (control.kind) {
    case "boolean":
      return (
        <label class="check">
          <input type="checkbox" name={name} checked={value === true} />{" "}
          {control.label}
        </label>
      );
    case "options":
      return (
        <div class="field">
          <label for={id}>{control.label}</label>
          <textarea id={id} name={name} rows={4} aria-describedby={described}>
            {optionsText(value)}
          </textarea>
          {hint}
        </div>
      );
    case "cardinality":
      return (
        <div class="field">
          <label for={id}>{control.label}</label>
          <select id={id} name={name}>
            {RELATION_CARDINALITIES.map((c) => (
              <option key={c} value={c} selected={value === c}>
                {CARDINALITY_WORDS[c]}
              </option>
            ))}
          </select>
        </div>
      );
    case "targets":
    case "media_kinds": {
      const chosen = Array.isArray(value) ? value.map(String) : [];
      const choices = control.kind === "targets"
        ? props.models.map((m) => ({ value: m.id, label: m.name }))
        : MEDIA_KINDS.map((k) => ({ value: k, label: k }));
      return (
        <fieldset class="field">
          <legend>{control.label}</legend>
          {choices.map((c) => (
            <label class="check" key={c.value}>
              <input
                type="checkbox"
                name={name}
                value={c.value}
                checked={chosen.includes(c.value)}
              />{" "}
              {c.label}
            </label>
          ))}
        </fieldset>
      );
    }
    default:
      return (
        <div class="field">
          <label for={id}>{control.label}</label>
          <input
            id={id}
            name={name}
            type={control.kind === "date"
              ? "date"
              : control.kind === "text"
              ? "text"
              : "number"}
            step={control.kind === "number" ? "any" : undefined}
            value={value === undefined ? "" : String(value)}
            aria-describedby={described}
          />
          {hint}
        </div>
      );
  }
}

/** One field's settings: its kind's controls, then the JSON for anything else. */
export function FieldSettings(props: {
  id: string;
  fieldKey: string;
  type: string;
  config: string;
  validation: string;
  models: readonly TargetModel[];
}) {
  const prefix = `f.${props.id}`;
  const controls = SETTINGS_OF[props.type] ?? [];
  const config = parsed(props.config);
  const validation = parsed(props.validation);
  return (
    <div class="field-settings">
      {controls.length === 0
        ? <p class="muted">This kind of field has no settings.</p>
        : (
          <>
            <input type="hidden" name={`${prefix}.settings`} value="1" />
            {controls.map((c) => (
              <Control
                key={`${c.in}.${c.key}`}
                prefix={prefix}
                control={c}
                value={(c.in === "config" ? config : validation)[c.key]}
                models={props.models}
              />
            ))}
          </>
        )}
      <details>
        <summary>Advanced: settings as JSON</summary>
        <p class="hint">
          The settings above win over the same names here.
        </p>
        <div class="field">
          <label for={`config-${props.id}`}>Config (JSON)</label>
          <textarea id={`config-${props.id}`} name={`config.${props.id}`}>
            {props.config}
          </textarea>
        </div>
        <div class="field">
          <label for={`validation-${props.id}`}>Validation (JSON)</label>
          <textarea
            id={`validation-${props.id}`}
            name={`validation.${props.id}`}
          >
            {props.validation}
          </textarea>
        </div>
      </details>
    </div>
  );
}

/** The settings a new field may need from the start, by kind; only its own kind's are read. */
export function NewFieldSettings(props: { models: readonly TargetModel[] }) {
  const shown: [string, SettingControl[]][] = [
    ["Select", SETTINGS_OF.select.filter((c) => c.in === "config")],
    [
      "Relation",
      SETTINGS_OF.relation.filter((c) =>
        c.key === "targets" || c.key === "cardinality"
      ),
    ],
    ["Number", SETTINGS_OF.number.filter((c) => c.in === "config")],
    ["Media", SETTINGS_OF.media.filter((c) => c.in === "config")],
  ];
  return (
    <details class="field-settings">
      <summary>Settings for a select, relation, number or media field</summary>
      <input type="hidden" name="new.settings" value="1" />
      {shown.map(([kind, controls]) => (
        <fieldset key={kind}>
          <legend>{kind} fields</legend>
          {controls.map((c) => (
            <Control
              key={`${kind}.${c.key}`}
              prefix="new"
              control={c}
              value={c.kind === "cardinality" ? "many-to-one" : undefined}
              models={props.models}
            />
          ))}
        </fieldset>
      ))}
      <div class="field">
        <label for="new-config">Or the config as JSON</label>
        <input id="new-config" name="new.config" />
      </div>
    </details>
  );
}
