// Full model definitions for public reads, kept per database handle and checked on every request
// against the revision the request's own context statement read. A model's revision moves in the
// same transaction as any change to its definition, so an entry whose revision matches is the
// stored definition: the cache saves work, never changes an answer, and needs nothing shared
// between processes (ARCHITECTURE "Scale").
import type { Db } from "../db/database.ts";
import { loadModels, type StoredModel } from "../models/store_rows.ts";

/** What a request's context read about a live model: enough to check a cached definition. */
export interface DefinitionKey {
  id: string;
  revision: number;
  /** The navigation folder label moves without a revision (display only), so it is compared too. */
  folder: string | null;
}

/** Definitions kept per handle; a new handle (another database) starts empty. */
const kept = new WeakMap<Db, Map<string, StoredModel>>();

/** Beyond this many models per handle the cache starts over (bounded memory, many sites). */
const KEPT_MAX = 2000;

/**
 * The definitions of `wanted` models of one site, from the cache when the revision matches,
 * else read in one go (and kept). A model gone since the context was read is left out.
 */
export async function modelDefinitions(
  db: Db,
  siteId: string,
  wanted: readonly DefinitionKey[],
): Promise<Map<string, StoredModel>> {
  let cache = kept.get(db);
  if (!cache) {
    cache = new Map();
    kept.set(db, cache);
  }
  const out = new Map<string, StoredModel>();
  const missing: string[] = [];
  for (const key of wanted) {
    const hit = cache.get(key.id);
    if (hit && hit.revision === key.revision && hit.folder === key.folder) {
      out.set(key.id, hit);
    } else {
      missing.push(key.id);
    }
  }
  if (missing.length === 0) return out;
  const loaded = await loadModels(db, siteId, missing);
  if (cache.size + loaded.length > KEPT_MAX) cache.clear();
  for (const model of loaded) {
    const frozen = deepFreeze(model);
    cache.set(model.id, frozen);
    out.set(model.id, frozen);
  }
  return out;
}

/** Shared definitions must not be changed by one request under another's feet. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
