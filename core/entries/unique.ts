// Unique values: each group claims its unique field values and combinations in `entry_unique_claims`.
import type { StoredModel } from "../models/store_rows.ts";
import type { CommandScope } from "./command.ts";
import type { LifecycleRefusal, UniqueRuleRef } from "./types.ts";

/** One unique rule of a model: a unique field (model scope) or a named combination. */
export interface UniqueRule {
  ref: Omit<UniqueRuleRef, "locale">;
  /** The claim's key: `field:<key>` or `combination:<name>`. */
  keyName: string;
}

/** The model's unique rules: unique top-level text and number fields, then its combinations. */
export function uniqueRules(model: StoredModel): UniqueRule[] {
  const fields: UniqueRule[] = model.fields
    .filter((f) => f.unique && (f.type === "text" || f.type === "number"))
    .map((f) => ({
      ref: { kind: "field", name: f.key, fields: [f.key], scope: "model" },
      keyName: `field:${f.key}`,
    }));
  const combinations: UniqueRule[] = (model.settings.unique_combinations ?? [])
    .map((c) => ({
      ref: {
        kind: "combination",
        name: c.name,
        fields: [...c.fields],
        scope: c.scope,
      },
      keyName: `combination:${c.name}`,
    }));
  return [...fields, ...combinations];
}

/** True when a value claims nothing: absent, null, or text that is blank. */
export function isEmptyMember(value: unknown): boolean {
  return value === undefined || value === null ||
    (typeof value === "string" && value.trim() === "");
}

async function digest(values: readonly unknown[]): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify(values));
  const hash = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(hash)].map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

interface Claim {
  rule: UniqueRule;
  scopeLocale: string;
  digest: string;
}

/** The claims one language's values make; a combination with an empty member claims nothing. */
export async function claimsOf(
  rules: readonly UniqueRule[],
  values: Record<string, unknown>,
  locale: string,
): Promise<Claim[]> {
  const claims: Claim[] = [];
  for (const rule of rules) {
    const members = rule.ref.fields.map((key) => values[key]);
    if (members.some(isEmptyMember)) continue;
    claims.push({
      rule,
      scopeLocale: rule.ref.scope === "language" ? locale : "",
      digest: await digest(members.map((v) => [typeof v, v])),
    });
  }
  return claims;
}

/**
 * Replaces the group's unique claims with those of the current version of each of its
 * languages, inside the save's transaction. A claim another group holds refuses the save
 * `unique_value_taken` (409) naming the rule and the holding group; the claims table's
 * primary key decides between concurrent saves, so exactly one of them wins.
 */
export async function claimUniqueValues(
  scope: CommandScope,
  siteId: string,
  model: StoredModel,
  groupId: string,
  /** The group holds no claims to replace: created by this command, or its claims cleared. */
  created = false,
): Promise<LifecycleRefusal | null> {
  const rules = uniqueRules(model);
  const { tx } = scope;
  if (!created) {
    await tx.deleteFrom("entry_unique_claims")
      .where("site_id", "=", siteId).where("group_id", "=", groupId).execute();
  }
  if (rules.length === 0) return null;
  const versions = await tx.selectFrom("entries")
    .innerJoin(
      "entry_versions",
      (join) =>
        join.onRef("entry_versions.site_id", "=", "entries.site_id")
          .onRef("entry_versions.id", "=", "entries.current_version_id"),
    )
    .select(["entries.locale", "entry_versions.fields"])
    .where("entries.site_id", "=", siteId)
    .where("entries.group_id", "=", groupId)
    .orderBy("entries.locale").execute();
  const seen = new Set<string>();
  for (const version of versions) {
    const values = version.fields as Record<string, unknown>;
    for (const claim of await claimsOf(rules, values, version.locale)) {
      const id = `${claim.scopeLocale}\n${claim.rule.keyName}\n${claim.digest}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const inserted = await tx.insertInto("entry_unique_claims").values({
        site_id: siteId,
        model_id: model.id,
        scope_locale: claim.scopeLocale,
        key_name: claim.rule.keyName,
        value_digest: claim.digest,
        group_id: groupId,
        created_at: scope.now,
      }).onConflict((oc) => oc.doNothing()).returning("group_id")
        .executeTakeFirst();
      if (inserted) continue;
      const holder = await tx.selectFrom("entry_unique_claims")
        .select("group_id")
        .where("site_id", "=", siteId).where("model_id", "=", model.id)
        .where("scope_locale", "=", claim.scopeLocale)
        .where("key_name", "=", claim.rule.keyName)
        .where("value_digest", "=", claim.digest).executeTakeFirst();
      return {
        ok: false,
        code: "unique_value_taken",
        unique: {
          ...claim.rule.ref,
          locale: claim.scopeLocale === "" ? null : claim.scopeLocale,
        },
        ...(holder ? { existing: { group_id: holder.group_id } } : {}),
      };
    }
  }
  return null;
}
