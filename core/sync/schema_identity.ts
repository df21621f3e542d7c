// The digest of what shapes public answers: languages, locale policy, models' visibility and field types.
import type { StoredModel } from "../models/store_rows.ts";
import { sha256Hex } from "../auth/secrets.ts";

/** What {@link schemaIdentity} digests. */
export interface SchemaFacts {
  defaultLocale: string;
  locales: readonly string[];
  policy: unknown;
  models: readonly StoredModel[];
}

/**
 * SHA-256 (hex) over the canonical JSON of the default language, the set of languages, the
 * locale policy, and per model (by slug) its visibility and each field's key, type and privacy.
 * Labels, descriptions and field order do not change it (spec 3 part 2.1, client answer).
 */
export function schemaIdentity(facts: SchemaFacts): Promise<string> {
  const models = [...facts.models].sort((a, b) => a.slug < b.slug ? -1 : 1)
    .map((m) => ({
      slug: m.slug,
      visibility: m.isPublic ? "public" : "private",
      fields: m.fields.map((f) => [f.key, f.type, f.private ? 1 : 0])
        .sort((a, b) => a[0] < b[0] ? -1 : 1),
    }));
  return sha256Hex(canonicalJson({
    default_locale: facts.defaultLocale,
    locales: [...facts.locales].sort(),
    policy: facts.policy,
    models,
  }));
}

/** JSON with object keys sorted at every level, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
    return `{${
      entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`)
        .join(",")
    }}`;
  }
  return JSON.stringify(value ?? null);
}
