// MOD-055: media a save newly names (media fields, rich-text media blocks and galleries) must be library items of this site and an accepted kind.
import type { ValueProblem } from "../models/validate_values.ts";
import type { ValueReference } from "../models/value_lists.ts";
import type { CommandScope } from "./command.ts";
import type { LifecycleRefusal } from "./types.ts";

interface MediaRef {
  path: string;
  id: string;
  kinds: string[] | null;
}

/** What a save's references are checked against: the version written and the one before. */
export interface SavedReferences {
  siteId: string;
  locale: string;
  /** References of the values this language held before (none for a new language). */
  previous: readonly ValueReference[];
  /** References of the new version's values. */
  written: readonly ValueReference[];
}

function mediaRefs(references: readonly ValueReference[]): MediaRef[] {
  return references.flatMap((ref) =>
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
  written: SavedReferences,
): Promise<LifecycleRefusal | null> {
  const held = new Set(mediaRefs(written.previous).map((r) => r.id));
  const refs = mediaRefs(written.written).filter((r) => !held.has(r.id));
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
