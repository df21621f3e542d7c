// Pieces the admin settings pages share: the acting person, the site's models, checkbox lists,
// refusal statuses, secrets shown once, revoke buttons.
import type { Context } from "hono";
import { listModels } from "../../../core/models/model_reads.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import CopyButton from "../../../islands/CopyButton.tsx";

/** The signed-in person acting on the request's site. */
export function personContext(c: Context<AppEnv>) {
  const { db, clock } = c.var.services;
  return { db, clock, siteId: c.var.site.id, personId: c.var.user!.id };
}

/** The site's models, in the admin's model order, as the settings forms list them. */
export async function siteModels(
  c: Context<AppEnv>,
): Promise<{ id: string; name: string; slug: string; isPublic: boolean }[]> {
  const { db, clock } = c.var.services;
  const models = await listModels({ db, clock, siteId: c.var.site.id });
  return models.map((m) => ({
    id: m.id,
    name: m.name,
    slug: m.slug,
    isPublic: m.isPublic,
  }));
}

/** The status of a settings page refused: 403 without the permission, 404 for what is gone, else 400. */
export function refusalStatus(code: string): 400 | 403 | 404 {
  return code === "missing_permission" ? 403 : code === "not_found" ? 404 : 400;
}

/** A secret shown on the one answer that created it. */
export function ShownOnce(props: { title: string; id: string; value: string }) {
  return (
    <section class="card" aria-labelledby={`${props.id}-heading`}>
      <h2 id={`${props.id}-heading`}>{props.title}</h2>
      <p>Copy it now: it is shown only once and cannot be read again.</p>
      <p class="secret">
        <code id={props.id}>{props.value}</code>
        <CopyButton targetId={props.id} label={props.title} />
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
