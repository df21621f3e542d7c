// PEXT-027: plugin blocks a save newly places in rich text must be registered by an active
// plugin on the site, at a version it declares, with values its declaration accepts.
import type { ValueProblem } from "../models/validate_values.ts";
import type { RichBlockRef } from "../models/rich_text.ts";
import type { ValueReference } from "../models/value_lists.ts";
import { registeredRichBlocks } from "../pages/embeds.ts";
import type { ManifestRichBlock } from "../plugins/manifest.ts";
import { checkRichBlock } from "../plugins/rich_blocks.ts";
import type { CommandScope } from "./command.ts";
import type { SavedReferences } from "./media_refs.ts";
import type { LifecycleRefusal } from "./types.ts";

function blockRefs(
  references: readonly ValueReference[],
): { path: string; block: RichBlockRef }[] {
  return references.flatMap((ref) =>
    ref.kind === "rich_block" ? [{ path: ref.path, block: ref.block }] : []
  );
}

const blockKey = (block: RichBlockRef) =>
  JSON.stringify([block.block, block.type, block.version, block.values]);

/**
 * Refuses `field_validation_failed` naming each path whose new plugin block is unregistered,
 * newer than its declaration or holds values it refuses (`rich_block_unregistered`,
 * `rich_block_version_unknown`, `rich_block_values_invalid`). A block the language already
 * held, unchanged, is not checked again: disabling a plugin must not stop editors from
 * saving the rest of a text that still shows its blocks.
 */
export async function checkRichBlockReferences(
  scope: CommandScope,
  written: SavedReferences,
): Promise<LifecycleRefusal | null> {
  const held = new Set(
    blockRefs(written.previous).map((r) => blockKey(r.block)),
  );
  const refs = blockRefs(written.written)
    .filter((r) => !held.has(blockKey(r.block)));
  if (refs.length === 0) return null;
  const registry = await registeredRichBlocks(scope.tx, written.siteId);
  const blocksOf = (pluginId: string) => {
    const declared: ManifestRichBlock[] = registry
      .filter((r) => r.pluginId === pluginId).map((r) => r.block);
    return declared.length > 0 ? declared : undefined;
  };
  const errors: ValueProblem[] = [];
  for (const ref of refs) {
    const check = checkRichBlock(ref.block, blocksOf);
    if (!check.ok) {
      errors.push({
        path: ref.path,
        code: check.code,
        message: check.message,
        locale: written.locale,
      });
    }
  }
  return errors.length > 0
    ? { ok: false, code: "field_validation_failed", errors }
    : null;
}
