// What an upgrade changes in the manifest beyond version and capabilities, for the administrator to
// review before confirming (spec 1 part 2.1 rule 4): declarations added, removed or changed, and
// manifest URLs that moved (the activation URL, the only hand-off address, among them).
import { manifestUrls, type ManifestV1 } from "./manifest.ts";

const DECLARATION_LISTS = [
  "manage_views",
  "content_actions",
  "operations",
  "policies",
  "media_sources",
  "ui_extensions",
  "rich_blocks",
] as const;

/** One declaration, by its list and id (`type` for rich blocks). */
export interface DeclarationRef {
  list: typeof DECLARATION_LISTS[number];
  id: string;
}

/** Declarations and URLs an upgrade changes. */
export interface ManifestChanges {
  declarations_added: DeclarationRef[];
  declarations_removed: DeclarationRef[];
  declarations_changed: DeclarationRef[];
  urls_changed: { path: string; from: string | null; to: string | null }[];
}

/** JSON with object keys sorted: a stored manifest (jsonb) keeps no key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
    return `{${
      entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")
    }}`;
  }
  return JSON.stringify(value);
}

function byId(items: readonly unknown[]): Map<string, string> {
  return new Map(
    (items as { id?: string; type?: string }[]).map((
      item,
    ) => [item.id ?? item.type ?? "", canonical(item)]),
  );
}

/** Compares the accepted manifest with the offered one. */
export function manifestChanges(
  accepted: ManifestV1,
  offered: ManifestV1,
): ManifestChanges {
  const changes: ManifestChanges = {
    declarations_added: [],
    declarations_removed: [],
    declarations_changed: [],
    urls_changed: [],
  };
  for (const list of DECLARATION_LISTS) {
    const before = byId(accepted[list]);
    const after = byId(offered[list]);
    for (const [id, item] of after) {
      const old = before.get(id);
      if (old === undefined) changes.declarations_added.push({ list, id });
      else if (old !== item) changes.declarations_changed.push({ list, id });
    }
    for (const id of before.keys()) {
      if (!after.has(id)) changes.declarations_removed.push({ list, id });
    }
  }
  const oldUrls = new Map(manifestUrls(accepted));
  const newUrls = new Map(manifestUrls(offered));
  for (const path of new Set([...oldUrls.keys(), ...newUrls.keys()])) {
    const from = oldUrls.get(path) ?? null;
    const to = newUrls.get(path) ?? null;
    if (from !== to) changes.urls_changed.push({ path, from, to });
  }
  return changes;
}
