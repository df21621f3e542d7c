// "Use built-in template" (spec 3 part 4.8 rule 4): accepts the released built-in by copying its
// three files into the site byte for byte, then, when delivery is set up and the site has an
// address, prepares and activates a release of it. The released files are the built-in template
// built by every check an upload passes (scripts/release_builtin.ts); their record names the
// digests they are read back against, so a changed or missing file makes the built-in unavailable.
import { acceptCandidate, currentAcceptance, strandedPins } from "./accept.ts";
import { artifactKey, writeArtifact } from "./artifacts.ts";
import {
  type Candidate,
  CURRENT_PAGE_CONTRACT,
  findCandidate,
  sectionsOf,
  type TemplateContext,
  type Unavailable,
  unavailable,
} from "./candidates.ts";
import { sha256HexSync } from "../kv/digest.ts";
import { readManifest } from "./manifest.ts";
import {
  activateRelease,
  prepareRelease,
  type Release,
  releaseHistory,
  type ReleaseRefusal,
} from "./releases.ts";
import { artifactsDir, missingSettings } from "./settings.ts";

/** The record written beside the released built-in's files. */
export interface BuiltInRecord {
  name: string;
  digest: string;
  contract: number;
  build_id: string;
  sandbox_image: string;
  source_digest: string;
  compiled_digest: string;
  report_digest: string;
}

/** Where this platform's released built-in lives. */
export const RELEASED_BUILTIN_DIR = new URL(
  "../../services/renderer/template/released/",
  import.meta.url,
).pathname;

const FILES = ["source.json", "compiled.json", "report.json"] as const;

/** The released built-in: its record and the exact text of its three files. */
export interface ReleasedBuiltIn {
  record: BuiltInRecord;
  texts: Record<typeof FILES[number], string>;
}

/** `platform_template_unavailable`: this platform has no usable released built-in. */
export interface PlatformTemplateUnavailable {
  ok: false;
  code: "platform_template_unavailable";
  reason: string;
}

/** Reads the released built-in and checks each file against its record. */
export async function readReleasedBuiltIn(
  dir = RELEASED_BUILTIN_DIR,
): Promise<
  { ok: true; released: ReleasedBuiltIn } | PlatformTemplateUnavailable
> {
  const unavailableBecause = (reason: string): PlatformTemplateUnavailable => ({
    ok: false,
    code: "platform_template_unavailable",
    reason,
  });
  let record: BuiltInRecord;
  const texts = {} as ReleasedBuiltIn["texts"];
  try {
    record = JSON.parse(await Deno.readTextFile(`${dir}/release.json`));
    for (const name of FILES) {
      texts[name] = await Deno.readTextFile(`${dir}/${name}`);
    }
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof SyntaxError) {
      return unavailableBecause("The released built-in's files are missing");
    }
    throw e;
  }
  const expected = {
    "source.json": record.source_digest,
    "compiled.json": record.compiled_digest,
    "report.json": record.report_digest,
  };
  for (const name of FILES) {
    if (sha256HexSync(texts[name]) !== expected[name]) {
      return unavailableBecause(`The released built-in's ${name} changed`);
    }
  }
  if (record.contract !== CURRENT_PAGE_CONTRACT) {
    return unavailableBecause(
      `The released built-in was built for page contract ${record.contract}`,
    );
  }
  return { ok: true, released: { record, texts } };
}

/** Why using the built-in was refused (nothing changed). */
export type BuiltInRefusal =
  | Unavailable
  | PlatformTemplateUnavailable
  | Exclude<Awaited<ReturnType<typeof acceptCandidate>>, { ok: true }>;

/** What using the built-in did: accepted, and released or what releasing lacks. */
export interface BuiltInUsed {
  ok: true;
  acceptance: number;
  candidate: Candidate;
  /** The active release of the built-in, or null when delivery stopped after acceptance. */
  release: Release | null;
  /** What delivery lacks (setting names, or `address` before a first address); empty when released. */
  missing: string[];
  /** A release refused after acceptance (e.g. a published page at the search address). */
  release_refused: ReleaseRefusal | null;
}

/** Uses the released built-in, loaded when the site's acceptance was `observed`. */
export async function useBuiltInTemplate(
  ctx: TemplateContext,
  options: { observed: number; dir?: string },
): Promise<BuiltInUsed | BuiltInRefusal> {
  const closed = unavailable(ctx.settings, "accept");
  if (closed) return closed;
  const read = await readReleasedBuiltIn(options.dir);
  if (!read.ok) return read;
  const { texts } = read.released;
  // Refusals come before the copy: a refused use stores nothing.
  const current = await currentAcceptance(ctx);
  if (current.sequence !== options.observed) {
    return { ok: false, code: "stale_document", current: current.sequence };
  }
  const packed = JSON.parse(texts["source.json"]) as {
    manifest: unknown;
    source: Record<string, string>;
  };
  const manifest = readManifest(packed.manifest);
  if (!manifest.ok) {
    return {
      ok: false,
      code: "platform_template_unavailable",
      reason: "The released built-in's manifest does not read",
    };
  }
  const sections = sectionsOf(manifest.manifest, packed.source);
  const stranded = await strandedPins(ctx, sections);
  if (stranded.length > 0) {
    return { ok: false, code: "section_pins_stranded", pins: stranded };
  }

  const candidate = await copyBuiltIn(ctx, read.released, sections);
  const accepted = await acceptCandidate(ctx, {
    candidateId: candidate.id,
    observed: options.observed,
  });
  if (!accepted.ok) return accepted;

  const used = {
    ok: true,
    acceptance: accepted.sequence,
    candidate,
    release: null,
    missing: [],
    release_refused: null,
  } satisfies BuiltInUsed;
  const missing = missingSettings(ctx.settings, "release");
  if (missing.length > 0) return { ...used, missing };
  // A production release is pinned to the site's active address; before one, there is none.
  const history = await releaseHistory(ctx);
  if (!history.address.active) return { ...used, missing: ["address"] };
  const prepared = await prepareRelease(ctx, history.address.active);
  if (!prepared.ok) return { ...used, release_refused: prepared };
  const activated = await activateRelease(
    ctx,
    prepared.release.number,
    history.active_number,
  );
  if (!activated.ok) return { ...used, release_refused: activated };
  return {
    ...used,
    release: activated.history.releases.find((r) =>
      r.number === prepared.release.number
    )!,
  };
}

/** The site's copy of the released built-in: its row, and its files written byte for byte. */
async function copyBuiltIn(
  ctx: TemplateContext,
  released: ReleasedBuiltIn,
  sections: ReturnType<typeof sectionsOf>,
): Promise<Candidate> {
  const { record, texts } = released;
  const existing = await ctx.db.selectFrom("template_candidates").select("id")
    .where("site_id", "=", ctx.siteId).where("digest", "=", record.digest)
    .executeTakeFirst();
  const id = existing?.id ?? crypto.randomUUID();
  const dir = artifactsDir(ctx.settings);
  for (const name of FILES) {
    await writeArtifact(dir, artifactKey(ctx.siteId, id, name), texts[name]);
  }
  if (!existing) {
    const manifest = JSON.parse(texts["source.json"]).manifest;
    const now = ctx.clock.now();
    const inserted = await ctx.db.insertInto("template_candidates").values({
      id,
      site_id: ctx.siteId,
      digest: record.digest,
      name: record.name,
      manifest: JSON.stringify(manifest),
      sections: JSON.stringify(sections),
      contract: record.contract,
      origin: "builtin",
      build_id: record.build_id,
      sandbox_image: record.sandbox_image,
      source_digest: record.source_digest,
      compiled_digest: record.compiled_digest,
      report_digest: record.report_digest,
      created_by: ctx.userId,
      created_at: now,
    }).onConflict((oc) => oc.columns(["site_id", "digest"]).doNothing())
      .returning("id").executeTakeFirst();
    if (!inserted) {
      // A racing use stored the copy first; its files are the same bytes.
      await Deno.remove(`${dir}/${ctx.siteId}/${id}`, { recursive: true })
        .catch(() => {});
      const raced = await ctx.db.selectFrom("template_candidates").select("id")
        .where("site_id", "=", ctx.siteId).where("digest", "=", record.digest)
        .executeTakeFirstOrThrow();
      return (await findCandidate(ctx, raced.id))!;
    }
  }
  return (await findCandidate(ctx, id))!;
}
