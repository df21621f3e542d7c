// Generates a site's standalone backend (spec 2 parts 4.6 and 5.3): reads its models, saved
// access rules and queries and its published content, refuses what cannot be emitted, and
// answers the project's files.
import type { Db } from "../../db/database.ts";
import { loadModels } from "../../models/store_rows.ts";
import { listModelAccess } from "../access.ts";
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
    { version: 1, site_id: site.id, tokens: [] },
    site.name,
  );
  return { ok: true, files, schema };
}
