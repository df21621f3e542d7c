// What every public read needs first: the readable model by slug, the site's languages and policy.
import type { FieldDefinition } from "../models/field_types.ts";
import type { StoredModel } from "../models/store_rows.ts";
import { HttpError } from "../web/errors.ts";
import type { LocalePlan } from "./projection.ts";
import type { ModelHead, PublicContext } from "./request_context.ts";
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

/** The models a request may read: heads of all of them, full definitions of those it loaded. */
export interface ReadableModels {
  /** Every readable live model of the site, by id. */
  heads: Map<string, ModelHead>;
  /** Full definitions of the readable model the path names and of its relation targets, by id. */
  definitions: Map<string, StoredModel>;
}

/** The models of `context` the request may read (private ones only with a scoped token). */
export function readableModels(
  context: PublicContext,
  scope: SiteTokenScope | null,
): ReadableModels {
  return {
    heads: new Map(
      context.heads.filter((m) => canRead(m, scope)).map((m) => [m.id, m]),
    ),
    definitions: new Map(
      [...context.definitions].filter(([, m]) => canRead(m, scope)),
    ),
  };
}

/** The readable model with `slug`, or null: a missing and a private model look alike. */
export function modelBySlug(
  models: ReadableModels,
  slug: string,
): StoredModel | null {
  for (const head of models.heads.values()) {
    if (head.slug === slug) return models.definitions.get(head.id) ?? null;
  }
  return null;
}

/** The site's locale plan, or `500 site_locale_policy_invalid`. */
export function localePlanOrRefuse(context: PublicContext): LocalePlan {
  const plan = context.localePlan;
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
