// The generated backend as one zip file, for Settings → Backend access: the same generation as
// `deno task svc generate-backend`, for a person holding site:infra (the project carries the
// published content and the deployed read tokens' digests). Each download is audited.
import { zipSync } from "fflate";
import { personHolding } from "../access/person_authority.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { snapshotActor } from "../entries/actor_snapshot.ts";
import {
  generateBackend,
  type GenerateOptions,
  type GenerationProblem,
} from "./generate/mod.ts";

/** Who asks, for which site. */
export interface DownloadContext {
  db: Db;
  clock: Clock;
  siteId: string;
  personId: string;
  /** The service's public address, for media URLs. */
  publicUrl: string;
}

/** What {@link backendArchive} answers. */
export type BackendArchive =
  | { ok: true; fileName: string; bytes: Uint8Array<ArrayBuffer> }
  | { ok: false; code: "missing_permission" }
  | {
    ok: false;
    code: GenerationProblem["code"];
    problems: GenerationProblem[];
  };

/** True when the person may download the site's backend (site:infra). */
export async function mayDownloadBackend(
  ctx: DownloadContext,
): Promise<boolean> {
  const held = await personHolding(ctx.db, {
    siteId: ctx.siteId,
    personId: ctx.personId,
    permission: "site:infra",
  });
  return held.ok;
}

/** A file name from the site's name: lower-case words joined by hyphens. */
function fileNameOf(siteName: string): string {
  const stem = siteName.toLowerCase().normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60);
  return `${stem || "site"}-backend.zip`;
}

/**
 * Generates the site's backend and zips it below one folder named like the file; refusals
 * answer the generator's problems and change nothing.
 */
export async function backendArchive(
  ctx: DownloadContext,
  options: Pick<GenerateOptions, "models" | "disabled">,
): Promise<BackendArchive> {
  if (!(await mayDownloadBackend(ctx))) {
    return { ok: false, code: "missing_permission" };
  }
  const result = await generateBackend(ctx.db, {
    siteId: ctx.siteId,
    publicUrl: ctx.publicUrl,
    models: options.models,
    disabled: options.disabled,
  });
  if (!result.ok) return result;
  const site = await ctx.db.selectFrom("sites").select("name")
    .where("id", "=", ctx.siteId).executeTakeFirstOrThrow();
  const fileName = fileNameOf(site.name);
  const folder = fileName.slice(0, -".zip".length);
  const encoder = new TextEncoder();
  const bytes = zipSync(
    Object.fromEntries(
      [...result.files].map(([path, text]) => [
        `${folder}/${path}`,
        encoder.encode(text),
      ]),
    ),
    { level: 6 },
  );
  const actor = await snapshotActor(ctx.db, ctx.siteId, {
    kind: "person",
    userId: ctx.personId,
  });
  await ctx.db.insertInto("audit_entries").values({
    id: crypto.randomUUID(),
    site_id: ctx.siteId,
    actor: JSON.stringify(actor),
    action: "backend.download",
    target: JSON.stringify({ kind: "generated_backend", id: ctx.siteId }),
    details: JSON.stringify({
      models: result.schema.models.map((m) => m.name),
      read_tokens: (JSON.parse(
        result.files.get("access/read-tokens.json") ?? '{"tokens":[]}',
      ) as { tokens: unknown[] }).tokens.length,
    }),
    created_at: ctx.clock.now(),
  }).execute();
  return { ok: true, fileName, bytes: bytes as Uint8Array<ArrayBuffer> };
}
