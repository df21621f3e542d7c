// Accepting a template candidate (spec 3 part 4.8 rules 1, 3 and 6): re-reads the three stored
// files, re-runs the source rules, requires a passing report bound to this site, candidate and
// build, refuses a stale load and stranded pins, then promotes each registered section to an
// immutable version. Accepting deploys nothing.
import { sql } from "kysely";
import { compiledDigest } from "./compiled_digest.ts";
import { artifactKey, readArtifact } from "./artifacts.ts";
import type { BuildReport } from "./build_client.ts";
import {
  BUILTIN_SITE,
  type CandidateSection,
  CURRENT_PAGE_CONTRACT,
  findCandidate,
  type TemplateContext,
  type Unavailable,
  unavailable,
} from "./candidates.ts";
import { readManifest, type SectionDefinition } from "./manifest.ts";
import { pinnedSections } from "./pins.ts";
import { artifactsDir } from "./settings.ts";
import { checkSourceRules } from "./source_rules.ts";
import { sectionDefinitionDigest } from "../pages/mod.ts";

/** The acceptance a page loaded: its sequence number, 0 before any. */
export async function currentAcceptance(
  ctx: Pick<TemplateContext, "db" | "siteId">,
): Promise<{ sequence: number; candidate_id: string | null }> {
  const row = await ctx.db.selectFrom("template_acceptances")
    .select(["sequence", "candidate_id"]).where("site_id", "=", ctx.siteId)
    .orderBy("sequence", "desc").limit(1).executeTakeFirst();
  return row ?? { sequence: 0, candidate_id: null };
}

/** The stored report of a candidate, when its file still matches its digest. */
export async function readReport(
  ctx: TemplateContext,
  candidateId: string,
): Promise<BuildReport | null> {
  const row = await ctx.db.selectFrom("template_candidates").select(
    "report_digest",
  )
    .where("site_id", "=", ctx.siteId).where("id", "=", candidateId)
    .executeTakeFirst();
  if (!row || !ctx.settings.TEMPLATE_ARTIFACTS) return null;
  const read = await readArtifact(
    artifactsDir(ctx.settings),
    artifactKey(ctx.siteId, candidateId, "report.json"),
    row.report_digest,
  );
  return read.ok ? read.value as BuildReport : null;
}

/** Why an acceptance was refused. */
export type AcceptRefusal =
  | Unavailable
  | { ok: false; code: "not_found" }
  | {
    ok: false;
    code: "template_contract_outdated";
    built: number;
    current: number;
  }
  | { ok: false; code: "stale_document"; current: number }
  | { ok: false; code: "candidate_unreadable"; reason: string }
  | {
    ok: false;
    code: "template_source_refused";
    rule: string;
    paths: string[];
  }
  | {
    ok: false;
    code: "section_pins_stranded";
    pins: { key: string; version: number; pages: number }[];
  };

/** A promoted section version. */
export interface PromotedSection {
  key: string;
  version: number;
  identity: string;
}

/** Accepts a candidate loaded when the site's acceptance was `observed`. */
export async function acceptCandidate(
  ctx: TemplateContext,
  options: { candidateId: string; observed: number },
): Promise<
  { ok: true; sequence: number; sections: PromotedSection[] } | AcceptRefusal
> {
  const closed = unavailable(ctx.settings, "accept");
  if (closed) return closed;
  const candidate = await findCandidate(ctx, options.candidateId);
  if (!candidate) return { ok: false, code: "not_found" };
  if (candidate.contract !== CURRENT_PAGE_CONTRACT) {
    return {
      ok: false,
      code: "template_contract_outdated",
      built: candidate.contract,
      current: CURRENT_PAGE_CONTRACT,
    };
  }
  const current = await currentAcceptance(ctx);
  if (current.sequence !== options.observed) {
    return { ok: false, code: "stale_document", current: current.sequence };
  }
  const row = await ctx.db.selectFrom("template_candidates")
    .select([
      "source_digest",
      "compiled_digest",
      "report_digest",
      "build_id",
      "digest",
    ])
    .where("site_id", "=", ctx.siteId).where("id", "=", candidate.id)
    .executeTakeFirstOrThrow();
  const dir = artifactsDir(ctx.settings);
  const files = await Promise.all([
    readArtifact(
      dir,
      artifactKey(ctx.siteId, candidate.id, "source.json"),
      row.source_digest,
    ),
    readArtifact(
      dir,
      artifactKey(ctx.siteId, candidate.id, "compiled.json"),
      row.compiled_digest,
    ),
    readArtifact(
      dir,
      artifactKey(ctx.siteId, candidate.id, "report.json"),
      row.report_digest,
    ),
  ]);
  for (const f of files) {
    if (!f.ok) {
      return { ok: false, code: "candidate_unreadable", reason: f.reason };
    }
  }
  const [source, compiled, report] = files.map((f) =>
    (f as { value: unknown }).value
  ) as [
    { manifest: unknown; source: Record<string, string> },
    Record<string, string>,
    BuildReport,
  ];
  const manifest = readManifest(source.manifest);
  if (!manifest.ok) {
    return {
      ok: false,
      code: "candidate_unreadable",
      reason: "source.json: the manifest does not read",
    };
  }
  const rules = checkSourceRules(source.source, manifest.manifest);
  if (!rules.ok) {
    return {
      ok: false,
      code: "template_source_refused",
      rule: rules.rule,
      paths: rules.paths,
    };
  }
  // The released built-in's report is the platform's, copied with it byte for byte.
  const site = candidate.origin === "builtin" ? BUILTIN_SITE : ctx.siteId;
  const bound = report.passed && report.site_id === site &&
    report.candidate_digest === row.digest &&
    report.build_id === row.build_id &&
    report.compiled_digest === await compiledDigest(compiled);
  if (!bound) {
    return {
      ok: false,
      code: "candidate_unreadable",
      reason: "report.json does not pass this site, candidate and build",
    };
  }
  const stranded = await strandedPins(ctx, candidate.sections);
  if (stranded.length > 0) {
    return { ok: false, code: "section_pins_stranded", pins: stranded };
  }

  const now = ctx.clock.now();
  const definitions = new Map(
    (manifest.manifest.registered_sections ?? []).map((
      s,
    ) => [s.definition.key, s]),
  );
  return await ctx.db.transaction().execute(async (trx) => {
    // One acceptance at a time per site: the next sequence is taken under this lock.
    await sql`select id from sites where id = ${ctx.siteId} for update`.execute(
      trx,
    );
    const again = await trx.selectFrom("template_acceptances").select(
      sql<number>`coalesce(max(sequence), 0)`.as("n"),
    )
      .where("site_id", "=", ctx.siteId).executeTakeFirstOrThrow();
    if (Number(again.n) !== options.observed) {
      return {
        ok: false,
        code: "stale_document",
        current: Number(again.n),
      } as const;
    }
    const promoted: PromotedSection[] = [];
    for (const s of candidate.sections) {
      const existing = await trx.selectFrom("registered_section_versions")
        .select("version")
        .where("site_id", "=", ctx.siteId).where("key", "=", s.key).where(
          "identity",
          "=",
          s.identity,
        )
        .executeTakeFirst();
      if (existing) {
        promoted.push({
          key: s.key,
          version: existing.version,
          identity: s.identity,
        });
        continue;
      }
      const top = await trx.selectFrom("registered_section_versions").select(
        sql<number>`coalesce(max(version), 0)`.as("n"),
      )
        .where("site_id", "=", ctx.siteId).where("key", "=", s.key)
        .executeTakeFirstOrThrow();
      const declared = definitions.get(s.key)!;
      const version = Number(top.n) + 1;
      await trx.insertInto("registered_section_versions").values({
        site_id: ctx.siteId,
        key: s.key,
        version,
        identity: s.identity,
        digest: await sectionDefinitionDigest(
          declared.definition,
          new TextEncoder().encode(source.source[declared.component]),
        ),
        definition: JSON.stringify(declared.definition),
        candidate_id: candidate.id,
        promoted_at: now,
      }).execute();
      promoted.push({ key: s.key, version, identity: s.identity });
    }
    const sequence = options.observed + 1;
    await trx.insertInto("template_acceptances").values({
      site_id: ctx.siteId,
      sequence,
      candidate_id: candidate.id,
      accepted_by: ctx.userId,
      accepted_at: now,
    }).execute();
    await trx.insertInto("audit_entries").values({
      id: crypto.randomUUID(),
      site_id: ctx.siteId,
      actor: JSON.stringify(
        ctx.userId
          ? { kind: "person", userId: ctx.userId }
          : { kind: "service" },
      ),
      action: "template.accepted",
      target: JSON.stringify({ kind: "template_candidate", id: candidate.id }),
      details: JSON.stringify({ sequence, sections: promoted }),
      created_at: now,
    }).execute();
    return { ok: true, sequence, sections: promoted } as const;
  });
}

/** Pins of saved or published pages whose version the candidate's sections no longer include. */
export async function strandedPins(
  ctx: Pick<TemplateContext, "db" | "siteId">,
  sections: CandidateSection[],
): Promise<{ key: string; version: number; pages: number }[]> {
  const pins = await pinnedSections(ctx.db, ctx.siteId);
  if (pins.length === 0) return [];
  const versions = await ctx.db.selectFrom("registered_section_versions")
    .select(["key", "version", "identity"]).where("site_id", "=", ctx.siteId)
    .execute();
  const identityOf = new Map(
    versions.map((v) => [`${v.key}@${v.version}`, v.identity]),
  );
  const included = new Set(sections.map((s) => `${s.key}|${s.identity}`));
  const counts = new Map<string, number>();
  for (const pin of pins) {
    const identity = identityOf.get(`${pin.key}@${pin.version}`);
    if (identity && included.has(`${pin.key}|${identity}`)) continue;
    const k = `${pin.key}@${pin.version}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return [...counts].map(([k, pages]) => {
    const [key, version] = k.split("@");
    return { key, version: Number(version), pages };
  });
}

/** How a candidate's section differs from the newest promoted version of its key. */
export interface SectionDiff {
  key: string;
  version: number;
  change: "new" | "unchanged" | "compatible" | "breaking";
  reasons: string[];
  pages_on_older: number;
}

/** The candidate's section diff (TPL-016). */
export async function sectionDiff(
  ctx: TemplateContext,
  candidateId: string,
): Promise<
  { ok: true; data: SectionDiff[] } | { ok: false; code: "not_found" }
> {
  const candidate = await findCandidate(ctx, candidateId);
  if (!candidate) return { ok: false, code: "not_found" };
  const manifest = readManifest(
    (await ctx.db.selectFrom("template_candidates").select("manifest")
      .where("id", "=", candidate.id).executeTakeFirstOrThrow()).manifest,
  );
  if (!manifest.ok) return { ok: false, code: "not_found" };
  const versions = await ctx.db.selectFrom("registered_section_versions")
    .select(["key", "version", "identity", "definition"]).where(
      "site_id",
      "=",
      ctx.siteId,
    )
    .orderBy("version", "desc").execute();
  const pins = await pinnedSections(ctx.db, ctx.siteId);
  const data = candidate.sections.map((s): SectionDiff => {
    const ofKey = versions.filter((v) => v.key === s.key);
    const newest = ofKey[0];
    const same = ofKey.find((v) => v.identity === s.identity);
    const version = same?.version ?? (newest ? newest.version + 1 : 1);
    const declared = manifest.manifest.registered_sections!.find((r) =>
      r.definition.key === s.key
    )!.definition;
    const pagesOnOlder = new Set(
      pins.filter((p) =>
        p.key === s.key && p.version < version
      ).map((p) => p.group_id),
    ).size;
    if (!newest) {
      return {
        key: s.key,
        version,
        change: "new",
        reasons: [],
        pages_on_older: pagesOnOlder,
      };
    }
    if (newest.identity === s.identity) {
      return {
        key: s.key,
        version,
        change: "unchanged",
        reasons: [],
        pages_on_older: pagesOnOlder,
      };
    }
    const before = (typeof newest.definition === "string"
      ? JSON.parse(newest.definition)
      : newest.definition) as SectionDefinition;
    const reasons = breakingReasons(before, declared);
    return {
      key: s.key,
      version,
      change: reasons.length > 0 ? "breaking" : "compatible",
      reasons,
      pages_on_older: pagesOnOlder,
    };
  });
  return { ok: true, data };
}

/** What stops values saved for `before` from reading under `after`. */
export function breakingReasons(
  before: SectionDefinition,
  after: SectionDefinition,
): string[] {
  const reasons: string[] = [];
  for (const v of before.variants) {
    if (!after.variants.includes(v)) reasons.push(`variant "${v}" removed`);
  }
  for (const [name, prop] of Object.entries(before.props)) {
    const next = after.props[name];
    if (!next) reasons.push(`prop "${name}" removed`);
    else if (next.kind !== prop.kind) {
      reasons.push(`prop "${name}" changed from ${prop.kind} to ${next.kind}`);
    } else if (prop.kind === "choice" && next.kind === "choice") {
      for (const o of prop.options) {
        if (!next.options.includes(o)) {
          reasons.push(`option "${o}" of "${name}" removed`);
        }
      }
    } else if (prop.kind === "list" && next.kind === "list") {
      for (const [item, p] of Object.entries(prop.props)) {
        if (!next.props[item]) {
          reasons.push(`item prop "${name}.${item}" removed`);
        } else if (next.props[item].kind !== p.kind) {
          reasons.push(
            `item prop "${name}.${item}" changed from ${p.kind} to ${
              next.props[item].kind
            }`,
          );
        }
      }
    }
  }
  return reasons;
}
