// Generates a site's standalone backend (spec 2 parts 4.6 and 5.3): reads its models, saved
// access rules and queries and its published content, refuses what cannot be emitted, and
// answers the project's files.
import type { Db } from "../../db/database.ts";
import { loadModels } from "../../models/store_rows.ts";
import { listModelAccess } from "../access.ts";
import { liveReadTokens } from "../read_tokens.ts";
import { listSavedQueries } from "../saved_queries.ts";
import { seedOf } from "./content.ts";
import { type GenerationProblem, planModels, tableOf } from "./plan.ts";
import { type ProjectFiles, projectFiles } from "./project.ts";
import {
  type BackendSchema,
  type Operation,
  OPERATIONS,
  type SavedQuerySpec,
} from "./template/src/schema.ts";
import type { ReadToken } from "./template/src/access.ts";

export { writeProject } from "./project.ts";
export type { GenerationProblem } from "./plan.ts";

/** What to generate. */
export interface GenerateOptions {
  siteId: string;
  /** Model slugs to emit; absent emits every model of the site. */
  models?: string[];
  /** The service's public address, for media URLs. */
  publicUrl: string;
  /** Answered by the backend as `x-artifact-commit`. */
  commit?: string | null;
  /** Operations to remove, by model slug. */
  disabled?: Record<string, Operation[]>;
}

/** The answer of {@link generateBackend}. */
export type GenerateResult =
  | { ok: true; files: ProjectFiles; schema: BackendSchema }
  | {
    ok: false;
    code: GenerationProblem["code"];
    problems: GenerationProblem[];
  };

/**
 * Reads `model.operation` pairs (`posts.delete`) into operations by model slug, or answers
 * what is wrong with one.
 */
export function parseDisabled(
  pairs: string[],
): Record<string, Operation[]> | string {
  const out: Record<string, Operation[]> = {};
  for (const pair of pairs) {
    const [slug, op] = pair.split(".");
    if (!slug || !(OPERATIONS as readonly string[]).includes(op)) {
      return `Cannot read "${pair}": expected <model>.<operation>, the operation one of ${
        OPERATIONS.join(", ")
      }`;
    }
    (out[slug] ??= []).push(op as Operation);
  }
  return out;
}

function refused(problems: GenerationProblem[]): GenerateResult {
  return { ok: false, code: problems[0].code, problems };
}

/**
 * Why the site's live deployed read tokens cannot go into this generation (GACC-015): a
 * single-model generation (one model chosen out of several) while any token is live, since
 * tokens belong to the site's backend; otherwise, a token whose scope names a model left out.
 */
function readTokenProblems(
  all: readonly { id: string; slug: string }[],
  emitted: readonly { id: string; slug: string }[],
  options: GenerateOptions,
  tokens: readonly ReadToken[],
): GenerationProblem[] {
  if (tokens.length === 0) return [];
  if (
    options.models && new Set(options.models).size === 1 && all.length > 1
  ) {
    return [{
      code: "read_tokens_need_site_graduation",
      model: emitted[0].slug,
      message:
        `${tokens.length} deployed read token(s) are live: generate the whole site, or several models covering their scopes`,
    }];
  }
  const ids = new Set(emitted.map((m) => m.id));
  return tokens.flatMap((token) =>
    token.models.filter((id) => !ids.has(id)).map((id) => ({
      code: "token_scope_not_emitted" as const,
      model: all.find((m) => m.id === id)?.slug ?? id,
      message:
        `Deployed read token ${token.id} reads this model, which is not generated`,
    }))
  );
}

/** Generates the backend of one site. */
export async function generateBackend(
  db: Db,
  options: GenerateOptions,
): Promise<GenerateResult> {
  const { siteId } = options;
  const site = await db.selectFrom("sites").select(["id", "name"])
    .where("id", "=", siteId).executeTakeFirstOrThrow();
  const languages = await db.selectFrom("site_languages")
    .select(["code", "is_default"]).where("site_id", "=", siteId)
    .orderBy("position").execute();
  const locales = languages.map((l) => l.code);
  const defaultLocale = languages.find((l) => l.is_default)?.code ??
    locales[0];
  const all = await loadModels(db, siteId, null);
  const stored = options.models
    ? all.filter((m) => options.models!.includes(m.slug))
    : all;
  stored.sort((a, b) => a.slug.localeCompare(b.slug));
  const unknown = (options.models ?? []).filter((slug) =>
    !all.some((m) => m.slug === slug)
  );
  if (unknown.length > 0) {
    return refused(unknown.map((slug) => ({
      code: "invalid_reference",
      model: slug,
      message: `No model "${slug}" on this site`,
    })));
  }
  const tokens = await liveReadTokens(db, siteId);
  const tokenProblems = readTokenProblems(all, stored, options, tokens);
  if (tokenProblems.length > 0) return refused(tokenProblems);
  const access = await listModelAccess({ db, siteId });
  const disabled = new Map(
    stored.map((m) => [m.id, options.disabled?.[m.slug] ?? []]),
  );
  const plan = planModels(stored, access, disabled);
  if (!plan.ok) return refused(plan.problems);
  const { seed, problems } = await seedOf(
    { db, siteId, publicUrl: options.publicUrl, locales, defaultLocale },
    stored,
    plan.models,
  );
  if (problems.length > 0) return refused(problems);
  const emitted = new Map(stored.map((m) => [m.id, tableOf(m)]));
  const queries: SavedQuerySpec[] = (await listSavedQueries({ db, siteId }))
    .flatMap((q) =>
      q.route && emitted.has(q.model_id)
        ? [{
          slug: q.slug,
          name: q.name,
          model: emitted.get(q.model_id)!,
          select: q.select,
          filter: q.filter,
          orderBy: q.order_by,
          take: q.take,
          access: { audience: q.route.audience, roles: q.route.roles },
        }]
        : []
    );
  const schema: BackendSchema = {
    version: 1,
    site: { id: site.id, locales, defaultLocale },
    commit: options.commit ?? null,
    models: plan.models,
    queries,
  };
  const files = await projectFiles(
    schema,
    seed,
    // Only deployed read tokens, by digest; site API tokens never reach a backend (GACC-014).
    { version: 1, site_id: site.id, tokens },
    site.name,
  );
  return { ok: true, files, schema };
}
