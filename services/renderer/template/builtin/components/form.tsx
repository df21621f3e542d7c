// Platform form component: an ordinary multipart form posting to /v1/interactions/form.submit,
// so it works without JavaScript; previews and unsaved renders draw it disabled.
import type { FormOutcome } from "../../mod.ts";

/** A form field of the page contract. */
export interface FormField {
  name: string;
  kind:
    | "text"
    | "email"
    | "phone"
    | "textarea"
    | "select"
    | "checkbox"
    | "file";
  label: string;
  required: boolean;
  help: string | null;
  options: string[];
  accept?: string[];
  max_files?: number;
}

/** Props of {@link PlatformForm}. */
export interface PlatformFormProps {
  pageId: string;
  locale: string;
  section: string;
  fields: FormField[];
  consent: string | null;
  submitLabel: string;
  successText: string;
  /** The page's own path, where the visitor returns after sending. */
  returnTo: string;
  formKey: string;
  disabled: boolean;
  outcome: FormOutcome | null;
}

const MESSAGES: Record<string, string> = {
  interaction_invalid:
    "Some answers are missing or not valid. Please check the form and send it again.",
  rate_limited:
    "Too many messages were sent from here. Please try again in a few minutes.",
  payload_too_large: "The attached files are too large.",
  form_not_found: "This form is no longer available.",
  form_key_reused: "This message was already sent.",
};

function Field(
  { field, id, disabled }: { field: FormField; id: string; disabled: boolean },
) {
  const help = field.help ? `${id}-help` : undefined;
  const common = {
    id,
    required: field.required,
    disabled,
    "aria-describedby": help,
  };
  const name = `values.${field.name}`;
  let control;
  switch (field.kind) {
    case "textarea":
      control = <textarea {...common} name={name} rows={5} />;
      break;
    case "select":
      control = (
        <select {...common} name={name}>
          <option value="">Choose…</option>
          {field.options.map((o) => <option key={o} value={o}>{o}</option>)}
        </select>
      );
      break;
    case "checkbox":
      return (
        <div class="field field-check">
          <input
            {...common}
            type="checkbox"
            name={`checks.${field.name}`}
            value="true"
          />
          <label for={id}>{field.label}</label>
          {help && <p class="help" id={help}>{field.help}</p>}
        </div>
      );
    case "file":
      control = (
        <input
          {...common}
          type="file"
          name={`files.${field.name}`}
          accept={field.accept?.length ? field.accept.join(",") : undefined}
          multiple={(field.max_files ?? 1) > 1}
        />
      );
      break;
    default:
      control = (
        <input
          {...common}
          name={name}
          type={field.kind === "phone" ? "tel" : field.kind}
          autocomplete={field.kind === "email"
            ? "email"
            : field.kind === "phone"
            ? "tel"
            : undefined}
        />
      );
  }
  return (
    <div class="field">
      <label for={id}>
        {field.label}
        {!field.required && <span class="optional">{` (optional)`}</span>}
      </label>
      {control}
      {help && <p class="help" id={help}>{field.help}</p>}
    </div>
  );
}

/** The form, its success text after sending, or what went wrong. */
export function PlatformForm(p: PlatformFormProps) {
  const mine = p.outcome?.section === p.section ? p.outcome : null;
  if (mine?.sent) {
    return <p class="form-success" role="status">{p.successText}</p>;
  }
  const prefix = `f-${p.section.replace(/[^A-Za-z0-9_-]/g, "-")}`;
  return (
    <form
      class="form"
      method="post"
      action="/v1/interactions/form.submit"
      enctype="multipart/form-data"
      aria-disabled={p.disabled ? "true" : undefined}
    >
      {p.disabled && (
        <p class="form-note">
          This form is shown disabled in a preview: nothing can be sent from
          here.
        </p>
      )}
      {mine?.code && (
        <p class="form-error" role="alert">
          {MESSAGES[mine.code] ??
            "The message could not be sent. Please try again."}
        </p>
      )}
      <input type="hidden" name="action" value="form.submit" />
      <input type="hidden" name="page" value={p.pageId} />
      <input type="hidden" name="locale" value={p.locale} />
      <input type="hidden" name="section" value={p.section} />
      <input type="hidden" name="key" value={p.formKey} />
      <input type="hidden" name="return" value={p.returnTo} />
      {p.fields.map((f) => (
        <Field field={f} id={`${prefix}-${f.name}`} disabled={p.disabled} />
      ))}
      {/* A field people never see; what bots type in it is accepted and dropped. */}
      <div class="hp" aria-hidden="true">
        <label for={`${prefix}-website`}>Website</label>
        <input
          id={`${prefix}-website`}
          name="website"
          tabindex={-1}
          autocomplete="off"
        />
      </div>
      {p.consent && (
        <div class="field field-check">
          <input
            id={`${prefix}-consent`}
            type="checkbox"
            name="consent"
            value="true"
            required
            disabled={p.disabled}
          />
          <label for={`${prefix}-consent`}>{p.consent}</label>
        </div>
      )}
      <button class="btn btn-primary" type="submit" disabled={p.disabled}>
        {p.submitLabel}
      </button>
    </form>
  );
}
