// A side-by-side comparison of two sets of field values, by the editor's controls.
import { type FieldControl, rawOf } from "../../../../core/admin/entry_form.ts";

/** Props of {@link Diff}. */
export interface DiffProps {
  controls: FieldControl[];
  left: Record<string, unknown>;
  right: Record<string, unknown>;
  leftLabel: string;
  rightLabel: string;
  /** Only the fields that differ. */
  changedOnly?: boolean;
}

function show(control: FieldControl, value: unknown): string {
  const raw = rawOf(control, value);
  return Array.isArray(raw) ? raw.join("\n") : raw;
}

/** A table of each field's two values; differing rows are marked in words and colour. */
export function Diff(props: DiffProps) {
  const rows = props.controls.map((c) => {
    const left = show(c, props.left[c.key]);
    const right = show(c, props.right[c.key]);
    return { control: c, left, right, changed: left !== right };
  }).filter((r) => !props.changedOnly || r.changed);
  if (rows.length === 0) return <p class="muted">No differences.</p>;
  return (
    <div class="table-wrap">
      <table class="diff-table">
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">{props.leftLabel}</th>
            <th scope="col">{props.rightLabel}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.control.key} class={r.changed ? "changed" : undefined}>
              <th scope="row">
                {r.control.label}
                {r.changed && <span class="badge changes">changed</span>}
              </th>
              <td>
                <pre>{r.left}</pre>
              </td>
              <td>
                <pre>{r.right}</pre>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
