// What every public read needs first: the readable model by slug, the site's languages and policy.
import type { Db } from "../db/database.ts";
import type { FieldDefinition } from "../models/field_types.ts";
import { loadModels, type StoredModel } from "../models/store_rows.ts";
import { HttpError } from "../web/errors.ts";
import { type LocalePlan, readLocalePlan } from "./projection.ts";
import type { SiteTokenScope } from "./site_tokens.ts";

/** Language codes the `locale` parameter accepts (spec 3 part 4.2). */
export const LOCALE_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** True when the request may read `model`: public, or named by the token's scope. */
export function canRead(
  model: { id: string; isPublic: boolean },
  scope: SiteTokenScope | null,
): boolean {
  return model.isPublic || (scope?.modelIds.includes(model.id) ?? false);
}

/** Every live model of the site the request may read, by id (private ones only with a scoped token). */
export async function readableModels(
  db: Db,
  siteId: string,
  scope: SiteTokenScope | null,
): Promise<Map<string, StoredModel>> {
  const models = await loadModels(db, siteId, null);
  return new Map(
    models.filter((m) => canRead(m, scope)).map((m) => [m.id, m]),
  );
}

/** The readable model with `slug`, or null: a missing and a private model look alike. */
export function modelBySlug(
  models: Map<string, StoredModel>,
  slug: string,
): StoredModel | null {
  for (const model of models.values()) if (model.slug === slug) return model;
  return null;
}

/** The site's locale plan, or `500 site_locale_policy_invalid`. */
export async function localePlanOrRefuse(
  db: Db,
  siteId: string,
): Promise<LocalePlan> {
  const plan = await readLocalePlan(db, siteId);
  if (!plan) {
    throw new HttpError(
      500,
      "site_locale_policy_invalid",
      "No usable locale policy is stored: fix it under Settings -> Languages",
    );
  }
  return plan;
}

/** The requested language: valid pattern, a language of the site; the default when absent. */
export function requestedLocale(
  plan: LocalePlan,
  locale: string | null,
): string {
  if (locale === null) return plan.defaultLanguage;
  if (!LOCALE_PATTERN.test(locale)) {
    throw new HttpError(
      400,
      "public_filter_invalid",
      `Invalid locale "${locale.slice(0, 64)}": expected a language code`,
    );
  }
  if (!plan.languages.includes(locale)) {
    throw new HttpError(
      404,
      "locale_unavailable",
      `The site serves no content in "${locale}"`,
    );
  }
  return locale;
}

/** The public (non-private) top-level field of `model` named `key`, or undefined. */
export function publicField(
  model: StoredModel,
  key: string,
): FieldDefinition | undefined {
  return model.fields.find((f) => f.key === key && !f.private);
}
