// This module is browser compatible.
// The rich-text field: without JavaScript a textarea of the canonical HTML document.
import { island } from "../core/web/island.ts";

/** Props of the rich-text field. */
export interface RichTextFieldProps extends Record<string, unknown> {
  id: string;
  name: string;
  value: string;
  readOnly: boolean;
  describedBy: string;
  invalid: boolean;
  label: string;
}

function RichTextField(props: RichTextFieldProps) {
  return (
    <textarea
      id={props.id}
      name={props.name}
      rows={10}
      readOnly={props.readOnly}
      spellcheck
      aria-describedby={props.describedBy || undefined}
      aria-invalid={props.invalid ? "true" : undefined}
    >
      {props.value}
    </textarea>
  );
}

export default island("RichTextField", RichTextField);
