// Template candidates (spec 3 part 4.8 rule 1): an upload `{ manifest, source }` is checked by the
// source rules, built and checked by the build service, and stored once per site and digest
// (three files under TEMPLATE_ARTIFACTS, bound by digest to a row). Only passing candidates are
// stored; a candidate never serves public traffic.
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { sha256HexSync } from "../kv/digest.ts";
import { canonicalJson, PAGE_CONTRACT } from "../pages/mod.ts";
import { artifactKey, artifactText, writeArtifact } from "./artifacts.ts";
import { type BuildReport, requestBuild } from "./build_client.ts";
import { readManifest, type TemplateManifest } from "./manifest.ts";
import { checkSourceRules, type SourceRefusal } from "./source_rules.ts";
import {
  artifactsDir,
  missingSettings,
  type TemplateEnv,
  type TemplateOperation,
} from "./settings.ts";

/** The page contract version candidates are built against now. */
export const CURRENT_PAGE_CONTRACT = Math.max(...Object.values(PAGE_CONTRACT));

/** The site a released built-in's report is bound to: the platform, not one site. */
export const BUILTIN_SITE = "platform";

/** What template commands take. */
export interface TemplateContext {
  db: Db;
  clock: Clock;
  siteId: string;
  /** The person acting, or null for the service itself. */
  userId: string | null;
  settings: TemplateEnv;
  fetch?: typeof fetch;
}

/** `503 template_operation_unavailable`: the settings an operation lacks. */
export interface Unavailable {
  ok: false;
  code: "template_operation_unavailable";
  operation: TemplateOperation;
  missing: string[];
}

/** The settings check every operation starts with. */
export function unavailable(
  settings: TemplateEnv,
  operation: TemplateOperation,
): Unavailable | null {
  const missing = missingSettings(settings, operation);
  return missing.length > 0
    ? { ok: false, code: "template_operation_unavailable", operation, missing }
    : null;
}

/** A registered section of a candidate, with its identity. */
export interface CandidateSection {
  key: string;
  label: string;
  component: string;
  /** SHA-256 over the canonical JSON of `{ definition, source }`. */
  identity: string;
}

/** A stored candidate as the admin and the API show it. */
export interface Candidate {
  id: string;
  name: string;
  digest: string;
  contract: number;
  origin: "upload" | "builtin" | "generated";
  regions: { key: string; label: string }[];
  sections: CandidateSection[];
  build_id: string;
  created_at: string;
}

/** The identity of a registered section: SHA-256 of `{ definition, source }` (rule 6, TPL-026). */
export function sectionIdentity(definition: unknown, source: string): string {
  return sha256HexSync(canonicalJson({ definition, source }));
}

/** The digest a candidate is stored once under. */
export function candidateDigest(
  manifest: unknown,
  source: Record<string, string>,
): string {
  return sha256HexSync(canonicalJson({ manifest, source }));
}

/** The sections of a manifest with their identities. */
export function sectionsOf(
  manifest: TemplateManifest,
  source: Record<string, string>,
): CandidateSection[] {
  return (manifest.registered_sections ?? []).map((s) => ({
    key: s.definition.key,
    label: s.definition.label,
    component: s.component,
    identity: sectionIdentity(s.definition, source[s.component] ?? ""),
  }));
}

type Row = {
  id: string;
  name: string;
  digest: string;
  contract: number;
  origin: string;
  manifest: unknown;
  build_id: string;
  created_at: Date;
  sections: unknown;
};

const COLUMNS = [
  "id",
  "name",
  "digest",
  "contract",
  "origin",
  "manifest",
  "sections",
  "build_id",
  "created_at",
] as const;

function parsed<T>(value: unknown): T {
  return (typeof value === "string" ? JSON.parse(value) : value) as T;
}

/** A row as the admin and the API show it. */
export function candidateOf(row: Row): Candidate {
  const manifest = parsed<TemplateManifest>(row.manifest);
  return {
    id: row.id,
    name: row.name,
    digest: row.digest,
    contract: row.contract,
    origin: row.origin as Candidate["origin"],
    regions: manifest.regions ?? [],
    sections: parsed<CandidateSection[]>(row.sections),
    build_id: row.build_id,
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** Why an upload was refused. */
export type UploadRefusal =
  | Unavailable
  | {
    ok: false;
    code: "invalid_template_manifest";
    issues: { path: string; message: string }[];
  }
  | SourceRefusal
  | { ok: false; code: "template_checks_failed"; report: BuildReport }
  | { ok: false; code: "template_build_unavailable"; detail: string };

/** Options of {@link storeCandidate}. */
export interface StoreOptions {
  manifest: unknown;
  source: Record<string, string>;
  origin: Candidate["origin"];
  operation?: TemplateOperation;
}

/**
 * Checks, builds and stores a candidate; the same `{ manifest, source }` uploaded again answers
 * the stored candidate (`created: false`) without building it twice.
 */
export async function storeCandidate(
  ctx: TemplateContext,
  options: StoreOptions,
): Promise<
  {
    ok: true;
    candidate: Candidate;
    created: boolean;
    report: BuildReport | null;
  } | UploadRefusal
> {
  const closed = unavailable(ctx.settings, options.operation ?? "upload");
  if (closed) return closed;
  const manifest = readManifest(options.manifest);
  if (!manifest.ok) return manifest;
  const rules = checkSourceRules(options.source, manifest.manifest);
  if (!rules.ok) return rules;
  const digest = candidateDigest(manifest.manifest, options.source);
  const existing = await findByDigest(ctx, digest);
  if (existing) {
    return { ok: true, candidate: existing, created: false, report: null };
  }

  const built = await requestBuild(ctx.settings, {
    site_id: ctx.siteId,
    candidate_digest: digest,
    contract: CURRENT_PAGE_CONTRACT,
    sandbox_image: ctx.settings.TEMPLATE_SANDBOX_IMAGE!,
    manifest: manifest.manifest,
    source: options.source,
  }, ctx.fetch);
  if (!built.ok) {
    return {
      ok: false,
      code: "template_build_unavailable",
      detail: built.detail,
    };
  }
  const report = built.report;
  // A report counts only for this site, this candidate and this contract.
  const bound = report.site_id === ctx.siteId &&
    report.candidate_digest === digest &&
    report.contract === CURRENT_PAGE_CONTRACT;
  if (!report.passed || !built.compiled || !bound) {
    return { ok: false, code: "template_checks_failed", report };
  }
  const id = crypto.randomUUID();
  const sections = sectionsOf(manifest.manifest, options.source);
  const dir = artifactsDir(ctx.settings);
  const source = artifactText({
    manifest: manifest.manifest,
    source: options.source,
  });
  const compiled = artifactText(built.compiled);
  const reportFile = artifactText(report);
  await writeArtifact(
    dir,
    artifactKey(ctx.siteId, id, "source.json"),
    source.text,
  );
  await writeArtifact(
    dir,
    artifactKey(ctx.siteId, id, "compiled.json"),
    compiled.text,
  );
  await writeArtifact(
    dir,
    artifactKey(ctx.siteId, id, "report.json"),
    reportFile.text,
  );
  const now = ctx.clock.now();
  const inserted = await ctx.db.insertInto("template_candidates").values({
    id,
    site_id: ctx.siteId,
    digest,
    name: manifest.manifest.name,
    manifest: JSON.stringify(manifest.manifest),
    sections: JSON.stringify(sections),
    contract: CURRENT_PAGE_CONTRACT,
    origin: options.origin,
    build_id: report.build_id,
    sandbox_image: report.sandbox_image,
    source_digest: source.digest,
    compiled_digest: compiled.digest,
    report_digest: reportFile.digest,
    created_by: ctx.userId,
    created_at: now,
  }).onConflict((oc) => oc.columns(["site_id", "digest"]).doNothing())
    .returning("id").executeTakeFirst();
  if (!inserted) {
    // A racing upload of the same candidate stored it first.
    await Deno.remove(`${dir}/${ctx.siteId}/${id}`, { recursive: true }).catch(
      () => {},
    );
    const raced = await findByDigest(ctx, digest);
    return { ok: true, candidate: raced!, created: false, report: null };
  }
  await ctx.db.insertInto("audit_entries").values({
    id: crypto.randomUUID(),
    site_id: ctx.siteId,
    actor: JSON.stringify(
      ctx.userId ? { kind: "person", userId: ctx.userId } : { kind: "service" },
    ),
    action: "template.candidate_stored",
    target: JSON.stringify({ kind: "template_candidate", id }),
    details: JSON.stringify({
      name: manifest.manifest.name,
      digest,
      origin: options.origin,
    }),
    created_at: now,
  }).execute();
  return {
    ok: true,
    created: true,
    report,
    candidate: candidateOf({
      id,
      name: manifest.manifest.name,
      digest,
      contract: CURRENT_PAGE_CONTRACT,
      origin: options.origin,
      manifest: manifest.manifest,
      sections,
      build_id: report.build_id,
      created_at: now,
    }),
  };
}

async function findByDigest(
  ctx: TemplateContext,
  digest: string,
): Promise<Candidate | null> {
  const row = await ctx.db.selectFrom("template_candidates").select(COLUMNS)
    .where("site_id", "=", ctx.siteId).where("digest", "=", digest)
    .executeTakeFirst();
  return row ? candidateOf(row) : null;
}

/** One candidate of the site, or null. */
export async function findCandidate(
  ctx: Pick<TemplateContext, "db" | "siteId">,
  id: string,
): Promise<Candidate | null> {
  if (
    !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)
  ) return null;
  const row = await ctx.db.selectFrom("template_candidates").select(COLUMNS)
    .where("site_id", "=", ctx.siteId).where("id", "=", id)
    .executeTakeFirst();
  return row ? candidateOf(row) : null;
}

/** The site's candidates, newest first. */
export async function listCandidates(
  ctx: Pick<TemplateContext, "db" | "siteId">,
): Promise<Candidate[]> {
  const rows = await ctx.db.selectFrom("template_candidates").select(COLUMNS)
    .where("site_id", "=", ctx.siteId)
    .orderBy("created_at", "desc").orderBy("id")
    .execute();
  return rows.map(candidateOf);
}
