// MOD-055: media a save newly names (media fields, rich-text media blocks and galleries) must be library items of this site and an accepted kind.
import { inspectEntryValues } from "../models/validate_values.ts";
import type { StoredModel } from "../models/store_rows.ts";
import type { ValueProblem } from "../models/validate_values.ts";
import type { CommandScope } from "./command.ts";
import type { LifecycleRefusal } from "./types.ts";

interface MediaRef {
  path: string;
  id: string;
  kinds: string[] | null;
}

function mediaRefs(
  model: StoredModel,
  values: Record<string, unknown>,
  locale: string,
): MediaRef[] {
  return inspectEntryValues(model, values, { mode: "save", locale }).references
    .flatMap((ref) =>
      ref.kind === "media"
        ? ref.ids.map((id) => ({
          path: ref.path,
          id: id.toLowerCase(),
          kinds: ref.kinds,
        }))
        : []
    );
}

/**
 * Refuses `field_validation_failed` naming each path whose newly named media item is missing,
 * on another site, or of a kind the field or block does not accept (`media_not_found`,
 * `media_kind_not_accepted`). Ids the language already held are not checked again: a file in
 * use cannot be removed, so they still exist.
 */
export async function checkMediaReferences(
  scope: CommandScope,
  written: {
    siteId: string;
    model: StoredModel;
    locale: string;
    fields: Record<string, unknown>;
    previous: Record<string, unknown>;
  },
): Promise<LifecycleRefusal | null> {
  const held = new Set(
    mediaRefs(written.model, written.previous, written.locale).map((r) => r.id),
  );
  const refs = mediaRefs(written.model, written.fields, written.locale)
    .filter((r) => !held.has(r.id));
  if (refs.length === 0) return null;
  const rows = await scope.tx.selectFrom("media_files").select(["id", "kind"])
    .where("site_id", "=", written.siteId)
    .where("id", "in", [...new Set(refs.map((r) => r.id))]).execute();
  const kinds = new Map(rows.map((r) => [r.id, r.kind as string]));
  const errors: ValueProblem[] = [];
  for (const ref of refs) {
    const kind = kinds.get(ref.id);
    if (kind === undefined) {
      errors.push({
        path: ref.path,
        code: "media_not_found",
        message: `No media item "${ref.id}" in this site's library`,
        locale: written.locale,
      });
    } else if (ref.kinds !== null && !ref.kinds.includes(kind)) {
      errors.push({
        path: ref.path,
        code: "media_kind_not_accepted",
        message: `Media item "${ref.id}" is a ${kind}; expected ${
          ref.kinds.join(" or ")
        }`,
        locale: written.locale,
      });
    }
  }
  return errors.length > 0
    ? { ok: false, code: "field_validation_failed", errors }
    : null;
}
