// Pieces the admin settings pages share: checkbox lists from forms, secrets shown once, revoke buttons.

/** The values of a form field that may repeat (checkboxes), as strings. */
export function formList(value: unknown): string[] {
  const list = Array.isArray(value)
    ? value
    : value === undefined
    ? []
    : [value];
  return list.map(String);
}

/** A secret shown on the one answer that created it. */
export function ShownOnce(props: { title: string; id: string; value: string }) {
  return (
    <section class="card" aria-labelledby={`${props.id}-heading`}>
      <h2 id={`${props.id}-heading`}>{props.title}</h2>
      <p>Copy it now: it is shown only once and cannot be read again.</p>
      <p>
        <code id={props.id}>{props.value}</code>
      </p>
    </section>
  );
}

/** "Revoked", or a form that revokes the item. */
export function RevokeCell(
  props: { csrfToken: string; id: string; revoked: boolean },
) {
  if (props.revoked) return <>Revoked</>;
  return (
    <form method="post" class="inline">
      <input type="hidden" name="_csrf" value={props.csrfToken} />
      <input type="hidden" name="action" value="revoke" />
      <input type="hidden" name="id" value={props.id} />
      <button type="submit" class="secondary">Revoke</button>
    </form>
  );
}
