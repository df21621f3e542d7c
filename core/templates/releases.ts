// Managed renderer releases and addresses (spec 3 parts 3 and 4.8 rule 8): prove a host
// (prepare a release pinned to it without moving traffic), switch to it in one batch, go back
// within seven days, forget the previous host. Releases are prepared and activated through the
// deploy service; the release's origin comes from the binding alone, and its digest covers it.
import { sql } from "kysely";
import { releaseHosting } from "./release_hosting.ts";
import { releaseSeoDefaults } from "./release_seo.ts";
import { createHmac } from "node:crypto";
import { sha256HexSync } from "../kv/digest.ts";
import { canonicalJson } from "../pages/mod.ts";
import { currentAcceptance } from "./accept.ts";
import {
  findCandidate,
  type TemplateContext,
  type Unavailable,
  unavailable,
} from "./candidates.ts";
import { pinnedSections } from "./pins.ts";
import { getSettings } from "../sites/settings.ts";
import { compiledFiles } from "./preview.ts";

/** How long the previous host may be gone back to. */
export const ROLLBACK_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

const HOST =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** A release as the admin and the API show it. */
export interface Release {
  number: number;
  state: "proven" | "active" | "retired";
  origin: string;
  candidate_id: string;
  template: string;
  digest: string;
  prepared_at: string;
  activated_at: string | null;
  retired_at: string | null;
}

/** The site's releases and addresses. */
export interface ReleaseHistory {
  releases: Release[];
  active_number: number | null;
  address: {
    active: string | null;
    previous: string | null;
    rollback_until: string | null;
  };
}

/** Refusals of release operations. */
export type ReleaseRefusal =
  | Unavailable
  | { ok: false; code: "invalid_host" }
  | { ok: false; code: "address_unchanged" }
  | { ok: false; code: "address_change_retained"; previous: string }
  | { ok: false; code: "no_accepted_template" }
  | { ok: false; code: "installation_id_changed"; recorded: string }
  | { ok: false; code: "release_not_found" }
  | { ok: false; code: "release_not_proven"; state: string }
  | { ok: false; code: "active_release_changed"; active_number: number | null }
  | { ok: false; code: "no_previous_address" }
  | { ok: false; code: "address_rollback_expired"; deadline: string }
  | {
    ok: false;
    code: "published_pages_pin_missing_sections";
    pins: { key: string; version: number }[];
  }
  | { ok: false; code: "search_page_address_taken"; paths: string[] }
  | { ok: false; code: "deploy_service_failed"; detail: string }
  | { ok: false; code: "candidate_unreadable"; reason: string };

/** The site's releases, newest first, and its addresses (DLV-002). */
export async function releaseHistory(
  ctx: Pick<TemplateContext, "db" | "siteId">,
): Promise<ReleaseHistory> {
  const rows = await ctx.db.selectFrom("managed_releases as r")
    .innerJoin("template_candidates as c", "c.id", "r.candidate_id")
    .select([
      "r.number",
      "r.state",
      "r.origin",
      "r.candidate_id",
      "c.name",
      "r.digest",
      "r.prepared_at",
      "r.activated_at",
      "r.retired_at",
    ])
    .where("r.site_id", "=", ctx.siteId).orderBy("r.number", "desc").execute();
  const addresses = await ctx.db.selectFrom("managed_addresses").selectAll()
    .where("site_id", "=", ctx.siteId).execute();
  const active = addresses.find((a) => a.role === "active");
  const previous = addresses.find((a) => a.role === "previous");
  const iso = (d: Date | null) => d ? new Date(d).toISOString() : null;
  return {
    releases: rows.map((r) => ({
      number: r.number,
      state: r.state,
      origin: r.origin,
      candidate_id: r.candidate_id,
      template: r.name,
      digest: r.digest,
      prepared_at: iso(r.prepared_at)!,
      activated_at: iso(r.activated_at),
      retired_at: iso(r.retired_at),
    })),
    active_number: rows.find((r) => r.state === "active")?.number ?? null,
    address: {
      active: active?.host ?? null,
      previous: previous?.host ?? null,
      rollback_until: iso(previous?.rollback_until ?? null),
    },
  };
}

async function deployCall(
  ctx: TemplateContext,
  path: string,
  body: unknown,
): Promise<
  { ok: true } | { ok: false; code: "deploy_service_failed"; detail: string }
> {
  try {
    const res = await (ctx.fetch ?? fetch)(
      `${ctx.settings.MANAGED_RENDER_DEPLOY_SERVICE_URL}${path}`,
      {
        method: "POST",
        headers: {
          authorization:
            `Bearer ${ctx.settings.MANAGED_RENDER_DEPLOY_SERVICE_KEY}`,
          "content-type": "application/json",
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(60_000),
      },
    );
    const text = await res.text();
    return res.status === 200 ? { ok: true } : {
      ok: false,
      code: "deploy_service_failed",
      detail: `${res.status} ${text.slice(0, 200)}`,
    };
  } catch (e) {
    return {
      ok: false,
      code: "deploy_service_failed",
      detail: e instanceof Error ? e.name : "error",
    };
  }
}

/** HMAC-SHA256 of a release digest under MANAGED_RENDER_HMAC_KEY, hex. */
export function releaseSignature(key: string, digest: string): string {
  return createHmac("sha256", key).update(digest).digest("hex");
}

/**
 * Prepares a release of the accepted template pinned to `https://<host>` (state `proven`);
 * traffic does not move.
 */
export async function prepareRelease(
  ctx: TemplateContext,
  host: string,
): Promise<{ ok: true; release: Release } | ReleaseRefusal> {
  const closed = unavailable(ctx.settings, "release");
  if (closed) return closed;
  const accepted = await currentAcceptance(ctx);
  if (!accepted.candidate_id) {
    return { ok: false, code: "no_accepted_template" };
  }
  const installation = ctx.settings.MANAGED_RENDER_INSTALLATION_ID!;
  const recorded = await ctx.db.selectFrom("managed_releases").select(
    "installation_id",
  )
    .where("site_id", "=", ctx.siteId).orderBy("number").limit(1)
    .executeTakeFirst();
  // DLV-004: the installation a first release was made for never changes.
  if (recorded && recorded.installation_id !== installation) {
    return {
      ok: false,
      code: "installation_id_changed",
      recorded: recorded.installation_id,
    };
  }
  const taken = await searchAddressesTaken(ctx);
  if (taken.length > 0) {
    return { ok: false, code: "search_page_address_taken", paths: taken };
  }
  const candidate = (await findCandidate(ctx, accepted.candidate_id))!;
  const files = await compiledFiles(ctx, candidate.id);
  if (!files.ok) return files;
  const origin = `https://${host}`;
  const top = await ctx.db.selectFrom("managed_releases").select(
    sql<number>`coalesce(max(number), 0)`.as("n"),
  )
    .where("site_id", "=", ctx.siteId).executeTakeFirstOrThrow();
  const number = Number(top.n) + 1;
  const compiledDigest = sha256HexSync(canonicalJson(files.files));
  const hosting = releaseHosting();
  const seo = await releaseSeoDefaults(ctx.db, ctx.siteId);
  // The digest covers the origin: a release cannot be replayed on another host.
  const digest = sha256HexSync(canonicalJson({
    site_id: ctx.siteId,
    number,
    candidate_id: candidate.id,
    compiled: compiledDigest,
    origin,
    installation_id: installation,
    transform_origins: ctx.settings.MANAGED_IMAGE_TRANSFORM_ORIGINS ?? "",
    hosting,
    ...(seo ? { seo } : {}),
  }));
  const signature = releaseSignature(
    ctx.settings.MANAGED_RENDER_HMAC_KEY!,
    digest,
  );
  const sent = await deployCall(ctx, "/releases/prepare", {
    site_id: ctx.siteId,
    number,
    origin,
    installation_id: installation,
    digest,
    signature,
    candidate_id: candidate.id,
    compiled_digest: compiledDigest,
    transform_origins: ctx.settings.MANAGED_IMAGE_TRANSFORM_ORIGINS ?? "",
    regions: candidate.regions,
    hosting,
    ...(seo ? { seo } : {}),
    files: files.files,
  });
  if (!sent.ok) return sent;
  const now = ctx.clock.now();
  await ctx.db.insertInto("managed_releases").values({
    site_id: ctx.siteId,
    number,
    candidate_id: candidate.id,
    state: "proven",
    origin,
    installation_id: installation,
    digest,
    signature,
    prepared_at: now,
    activated_at: null,
    retired_at: null,
  }).execute();
  const history = await releaseHistory(ctx);
  return {
    ok: true,
    release: history.releases.find((r) => r.number === number)!,
  };
}

/**
 * Published pages at `/search` or `/<language>/search` while site search is on (SRCH-030): the
 * release's search page would hide them, so no new release is made until they move.
 */
async function searchAddressesTaken(
  ctx: Pick<TemplateContext, "db" | "siteId">,
): Promise<string[]> {
  const search = await getSettings(ctx, "search");
  if (!search.document.enabled) return [];
  const rows = await ctx.db.selectFrom("entries as e")
    .leftJoin(
      "site_languages as l",
      (j) =>
        j.onRef("l.site_id", "=", "e.site_id").onRef("l.code", "=", "e.locale"),
    )
    .select(["e.locale", "l.is_default"])
    .where("e.site_id", "=", ctx.siteId)
    .where(
      "e.model_id",
      "in",
      (eb) =>
        eb.selectFrom("models").select(sql<string>`id::text`.as("id"))
          .where("site_id", "=", ctx.siteId).where("slug", "=", "pages"),
    )
    .where("e.slug", "=", "search")
    .where("e.published_version_id", "is not", null)
    .orderBy("e.locale").execute();
  return rows.map((r) => r.is_default ? "/search" : `/${r.locale}/search`);
}

/** `POST …/address/prove`: checks the host and prepares a release pinned to it (DLV-007). */
export async function proveAddress(
  ctx: TemplateContext,
  rawHost: string,
): Promise<{ ok: true; release: Release } | ReleaseRefusal> {
  const closed = unavailable(ctx.settings, "release");
  if (closed) return closed;
  const host = rawHost.trim().toLowerCase();
  if (!HOST.test(host)) return { ok: false, code: "invalid_host" };
  const history = await releaseHistory(ctx);
  // DLV-011: a new change waits until the previous host is removed.
  if (history.address.previous) {
    return {
      ok: false,
      code: "address_change_retained",
      previous: history.address.previous,
    };
  }
  if (history.address.active === host) {
    return { ok: false, code: "address_unchanged" };
  }
  return await prepareRelease(ctx, host);
}

/** Published pages' pins the release's template does not draw (TPL-027). */
async function missingPins(
  ctx: TemplateContext,
  candidateId: string,
): Promise<{ key: string; version: number }[]> {
  const pins = await pinnedSections(ctx.db, ctx.siteId, {
    publishedOnly: true,
  });
  if (pins.length === 0) return [];
  const candidate = (await findCandidate(ctx, candidateId))!;
  const versions = await ctx.db.selectFrom("registered_section_versions")
    .select(["key", "version", "identity"])
    .where("site_id", "=", ctx.siteId).execute();
  const identityOf = new Map(
    versions.map((v) => [`${v.key}@${v.version}`, v.identity]),
  );
  const drawn = new Set(
    candidate.sections.map((s) => `${s.key}|${s.identity}`),
  );
  const missing = new Map<string, { key: string; version: number }>();
  for (const pin of pins) {
    const identity = identityOf.get(`${pin.key}@${pin.version}`);
    if (!identity || !drawn.has(`${pin.key}|${identity}`)) {
      missing.set(`${pin.key}@${pin.version}`, {
        key: pin.key,
        version: pin.version,
      });
    }
  }
  return [...missing.values()];
}

/** Makes release `number` the active one and its host the active address, in one batch. */
async function activate(
  ctx: TemplateContext,
  number: number,
  observed: number | null,
  addressChange: "switch" | "rollback",
): Promise<{ ok: true; history: ReleaseHistory } | ReleaseRefusal> {
  const history = await releaseHistory(ctx);
  if (history.active_number !== observed) {
    return {
      ok: false,
      code: "active_release_changed",
      active_number: history.active_number,
    };
  }
  const release = await ctx.db.selectFrom("managed_releases").selectAll()
    .where("site_id", "=", ctx.siteId).where("number", "=", number)
    .executeTakeFirst();
  if (!release) return { ok: false, code: "release_not_found" };
  const missing = await missingPins(ctx, release.candidate_id);
  if (missing.length > 0) {
    return {
      ok: false,
      code: "published_pages_pin_missing_sections",
      pins: missing,
    };
  }
  const host = new URL(release.origin).hostname;
  const sent = await deployCall(ctx, "/releases/activate", {
    site_id: ctx.siteId,
    number,
    host,
    digest: release.digest,
  });
  if (!sent.ok) return sent;
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable("managed_releases").set({
      state: "retired",
      retired_at: now,
    })
      .where("site_id", "=", ctx.siteId).where("state", "=", "active")
      .execute();
    await trx.updateTable("managed_releases").set({
      state: "active",
      activated_at: now,
      retired_at: null,
    })
      .where("site_id", "=", ctx.siteId).where("number", "=", number).execute();
    const active = history.address.active;
    // A new release on the same host moves no address and keeps the previous one's window.
    if (active !== host) {
      await trx.deleteFrom("managed_addresses").where(
        "site_id",
        "=",
        ctx.siteId,
      )
        .execute();
      await trx.insertInto("managed_addresses").values({
        site_id: ctx.siteId,
        host,
        role: "active",
        switched_at: now,
        rollback_until: null,
      }).execute();
    }
    if (addressChange === "switch" && active && active !== host) {
      await trx.insertInto("managed_addresses").values({
        site_id: ctx.siteId,
        host: active,
        role: "previous",
        switched_at: now,
        rollback_until: new Date(now.getTime() + ROLLBACK_WINDOW_MS),
      }).execute();
    }
    await trx.insertInto("audit_entries").values({
      id: crypto.randomUUID(),
      site_id: ctx.siteId,
      actor: JSON.stringify(
        ctx.userId
          ? { kind: "person", userId: ctx.userId }
          : { kind: "service" },
      ),
      action: addressChange === "switch"
        ? "release.switched"
        : "release.rolled_back",
      target: JSON.stringify({ kind: "managed_release", number }),
      details: JSON.stringify({ host, previous: active }),
      created_at: now,
    }).execute();
  });
  return { ok: true, history: await releaseHistory(ctx) };
}

/** Activates a proven release of the host already active (the built-in's release, TPL-017). */
export async function activateRelease(
  ctx: TemplateContext,
  number: number,
  observed: number | null,
): Promise<{ ok: true; history: ReleaseHistory } | ReleaseRefusal> {
  const closed = unavailable(ctx.settings, "release");
  if (closed) return closed;
  return await activate(ctx, number, observed, "switch");
}

/** `POST …/releases/{number}/switch-address` (DLV-008). */
export async function switchAddress(
  ctx: TemplateContext,
  number: number,
  observed: number | null,
): Promise<{ ok: true; history: ReleaseHistory } | ReleaseRefusal> {
  const closed = unavailable(ctx.settings, "release");
  if (closed) return closed;
  const release = await ctx.db.selectFrom("managed_releases").select("state")
    .where("site_id", "=", ctx.siteId).where("number", "=", number)
    .executeTakeFirst();
  if (!release) return { ok: false, code: "release_not_found" };
  if (release.state !== "proven") {
    return { ok: false, code: "release_not_proven", state: release.state };
  }
  return await activate(ctx, number, observed, "switch");
}

/** `POST …/address/rollback`: back to the previous host's release within seven days (DLV-009). */
export async function rollbackAddress(
  ctx: TemplateContext,
  observed: number | null,
): Promise<{ ok: true; history: ReleaseHistory } | ReleaseRefusal> {
  const closed = unavailable(ctx.settings, "release");
  if (closed) return closed;
  const history = await releaseHistory(ctx);
  if (!history.address.previous) {
    return { ok: false, code: "no_previous_address" };
  }
  const deadline = history.address.rollback_until!;
  if (ctx.clock.now().getTime() > new Date(deadline).getTime()) {
    return { ok: false, code: "address_rollback_expired", deadline };
  }
  const back = history.releases.find((r) =>
    r.state === "retired" && r.origin === `https://${history.address.previous}`
  );
  if (!back) return { ok: false, code: "release_not_found" };
  return await activate(ctx, back.number, observed, "rollback");
}

/** `POST …/address/remove-previous`: forgets the previous host's route (DLV-010). */
export async function removePreviousAddress(
  ctx: TemplateContext,
): Promise<{ ok: true; history: ReleaseHistory } | ReleaseRefusal> {
  const closed = unavailable(ctx.settings, "release");
  if (closed) return closed;
  const history = await releaseHistory(ctx);
  if (!history.address.previous) {
    return { ok: false, code: "no_previous_address" };
  }
  const sent = await deployCall(ctx, "/releases/forget", {
    site_id: ctx.siteId,
    host: history.address.previous,
  });
  if (!sent.ok) return sent;
  await ctx.db.deleteFrom("managed_addresses").where("site_id", "=", ctx.siteId)
    .where("role", "=", "previous").execute();
  return { ok: true, history: await releaseHistory(ctx) };
}
