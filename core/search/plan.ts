// How each searched type matches and ranks, from the site's `search` settings and its models (spec 3 part 4.7).
import type { StoredModel } from "../models/store_rows.ts";
import { SHARED_SECTION_MODEL } from "../pages/shared.ts";
import type { SettingsDocument } from "../sites/settings_documents.ts";
import { canonicalJson } from "../sync/schema_identity.ts";
import { sha256HexSync } from "../kv/digest.ts";
import type { Db } from "../db/database.ts";
import { modelDefinitions } from "../public/model_definitions.ts";
import type { PublicContext } from "../public/request_context.ts";
import { searchableFields, titleField } from "./fields.ts";

/** Matching modes per type; absent in settings means whole words. */
export { MATCHING_MODES } from "../sites/settings_documents.ts";
import { MATCHING_MODES } from "../sites/settings_documents.ts";
/** One matching mode. */
export type MatchingMode = typeof MATCHING_MODES[number];

/** Types searched always, when public: pages and, on a Blog site, posts. */
export const ALWAYS_SEARCHED = ["pages", "posts"] as const;

/** How one type is searched. */
export interface TypePlan {
  model: StoredModel;
  mode: MatchingMode;
  /** Fields whose union must hold every word. */
  matchKeys: string[];
  /** Fields a result ranks by: the highest weight among those holding every word. */
  rank: { key: string; weight: number }[];
  titleKey: string | null;
}

/** The whole plan and the digest cursors are bound to. */
export interface SearchPlan {
  enabled: boolean;
  types: TypePlan[];
  /** Changes whenever matching or ranking changes; a cursor from before is refused. */
  digest: string;
}

/**
 * The plan for a site from its `search` settings document and its live models. Private types are
 * never searched, whatever the settings say.
 */
export function searchPlan(
  settings: SettingsDocument<"search">,
  liveModels: readonly StoredModel[],
): SearchPlan {
  // Only types whose items have an address on the site are searched and suggested (SRCH-012):
  // shared sections live inside pages and have none.
  const models = liveModels.filter((m) =>
    m.isPublic && m.slug !== SHARED_SECTION_MODEL
  );
  const find = (ref: string) =>
    models.find((m) => m.id === ref.toLowerCase() || m.slug === ref);
  const chosen = new Map<string, { model: StoredModel; setting?: Setting }>();
  for (const slug of ALWAYS_SEARCHED) {
    const m = models.find((x) => x.slug === slug);
    if (m) chosen.set(m.id, { model: m });
  }
  for (const setting of settings.types as Setting[]) {
    const m = find(setting.model);
    if (m) chosen.set(m.id, { model: m, setting });
  }
  const types = [...chosen.values()].map(({ model, setting }) =>
    typePlan(model, setting)
  );
  const digest = sha256HexSync(canonicalJson({
    enabled: settings.enabled,
    types: types.map((t) => ({
      m: t.model.id,
      mode: t.mode,
      keys: t.matchKeys,
      rank: t.rank,
    })),
  }));
  return { enabled: settings.enabled, types, digest };
}

/** The plan of a public request's site: its context holds the settings and the live models. */
export async function publicSearchPlan(
  db: Db,
  context: PublicContext,
): Promise<SearchPlan> {
  const definitions = await modelDefinitions(
    db,
    context.site.id,
    context.heads.filter((h) => h.isPublic),
  );
  return searchPlan(
    context.searchSettings as SettingsDocument<"search">,
    [...definitions.values()],
  );
}

interface Setting {
  model: string;
  fields: { field: string; weight: number }[];
  /** Not yet in the settings schema (see docs/sync-and-search.md); absent is whole words. */
  matching?: string;
}

function typePlan(model: StoredModel, setting?: Setting): TypePlan {
  const open = searchableFields(model).map((f) => f.key);
  const title = titleField(model)?.key ?? null;
  const mode = (MATCHING_MODES as readonly string[]).includes(
      setting?.matching ?? "",
    )
    ? setting!.matching as MatchingMode
    : "whole_words";
  const ticked = (setting?.fields ?? []).filter((f) => open.includes(f.field));
  if (setting && setting.fields.length > 0) {
    // Tuned: ticked fields only, for matching and for ranking.
    return {
      model,
      mode,
      matchKeys: ticked.map((f) => f.field),
      rank: ticked.map((f) => ({ key: f.field, weight: f.weight })),
      titleKey: title,
    };
  }
  return {
    model,
    mode,
    matchKeys: open,
    rank: title ? [{ key: title, weight: 10 }] : [],
    titleKey: title,
  };
}
