// Page addresses set in a draft (spec 3 part 4.7 `POST /api/pages/{id}/address`; DLV-013, ENT-030):
// a new version records the address, the live page keeps its own until that language is
// published, and publication moves it and leaves a redirect from the old address.
import { runCommand } from "../entries/command.ts";
import type { CommandScope } from "../entries/command.ts";
import { saveInScope } from "../entries/save.ts";
import type { GroupRow, InstanceRow } from "../entries/store.ts";
import type { LifecycleContext, LifecycleOutcome } from "../entries/types.ts";
import type { Db } from "../db/database.ts";
import {
  SETTINGS_DEFAULTS,
  SETTINGS_SCHEMAS,
} from "../sites/settings_documents.ts";
import { forgetSettingsRead } from "../sites/settings.ts";
import { isReservedPageSlug } from "./addresses.ts";
import { addressHeld, recordPendingAddress } from "./address_store.ts";
import { INSTANCE_COLUMNS } from "../db/row_columns.ts";

/** Most exact redirects the SEO settings hold (spec 3 part 8). */
const EXACT_REDIRECTS_MAX = 256;

/** An address waiting for publication; `address` null means the page will have none. */
export interface PendingAddress {
  entry_id: string;
  version_id: string;
  address: string | null;
}

/** The pending addresses of `entryIds`, by entry id. */
export async function pendingAddresses(
  db: Db,
  siteId: string,
  entryIds: readonly string[],
): Promise<Map<string, PendingAddress>> {
  if (entryIds.length === 0) return new Map();
  const rows = await db.selectFrom("page_pending_addresses").select([
    "entry_id",
    "version_id",
    "address",
  ]).where("site_id", "=", siteId).where("entry_id", "in", [...entryIds])
    .execute();
  return new Map(rows.map((r) => [r.entry_id, r]));
}

/** A setting of a page's address in one language, pinned to the version the caller read. */
export interface SetPageAddressOptions {
  group_id: string;
  locale: string;
  /** The new address (a slug such as `about-us`), or null to take the address away. */
  address: string | null;
  expected_current_version_id: string | null;
  /** The new version's values; absent keeps the current version's. */
  fields?: Record<string, unknown>;
}

/**
 * Writes a new version of the language (same values) recording the address, in one command:
 * refusals are the save's (`not_found`, `unknown_locale`, `version_conflict`, permissions) and
 * `slug_reserved` or `slug_taken` for an address the service keeps or another page holds.
 */
export function setPageAddress(
  ctx: LifecycleContext,
  options: SetPageAddressOptions,
): Promise<LifecycleOutcome> {
  return runCommand(ctx, async (scope) => {
    const instance = await scope.tx.selectFrom("entries").select(
      INSTANCE_COLUMNS,
    )
      .where("site_id", "=", ctx.siteId)
      .where("group_id", "=", options.group_id)
      .where("locale", "=", options.locale).executeTakeFirst();
    if (!instance) {
      const group = await scope.tx.selectFrom("entry_groups").select("id")
        .where("site_id", "=", ctx.siteId).where("id", "=", options.group_id)
        .executeTakeFirst();
      return { ok: false, code: group ? "unknown_locale" : "not_found" };
    }
    if (options.address !== null) {
      if (isReservedPageSlug(options.address)) {
        return { ok: false, code: "slug_reserved" };
      }
      if (
        await addressHeld(scope.tx, ctx.siteId, instance, options.address)
      ) {
        return { ok: false, code: "slug_taken" };
      }
    }
    const version = instance.current_version_id === null
      ? undefined
      : await scope.tx.selectFrom("entry_versions").select("fields")
        .where("site_id", "=", ctx.siteId)
        .where("id", "=", instance.current_version_id).executeTakeFirst();
    const saved = await saveInScope(scope, {
      ctx,
      group_id: options.group_id,
      locale: options.locale,
      fields: options.fields ??
        (version?.fields ?? {}) as Record<string, unknown>,
      expected_current_version_id: options.expected_current_version_id,
      auditDetails: { page_address: options.address },
    });
    if (!saved.ok) return saved;
    const current = saved.instances.find((i) => i.locale === options.locale);
    await recordPendingAddress(scope.tx, {
      entry_id: instance.id,
      site_id: ctx.siteId,
      version_id: current?.current_version_id ?? saved.current_version_id!,
      address: options.address,
      created_at: scope.now,
    });
    return saved;
  });
}

/**
 * At publication: moves the language to its pending address and adds a 301 from the old one to
 * the SEO redirects (rules that pointed at the old address now point at the new one, and a rule
 * from the new address is dropped, so no chain or loop is left). Answers whether a redirect was
 * added: none when the address did not change or the 256 exact redirects are all used.
 */
export async function applyPendingAddress(
  scope: CommandScope,
  siteId: string,
  group: GroupRow,
  instance: InstanceRow,
  pending: PendingAddress & { address: string },
): Promise<{ from: string; to: string; redirected: boolean }> {
  const tx = scope.tx;
  await tx.deleteFrom("page_pending_addresses").where(
    "entry_id",
    "=",
    instance.id,
  ).execute();
  const model = await tx.selectFrom("models").select("slug")
    .where("site_id", "=", siteId).where("id", "=", group.model_id)
    .executeTakeFirstOrThrow();
  const language = await tx.selectFrom("site_languages").select("is_default")
    .where("site_id", "=", siteId).where("code", "=", instance.locale)
    .executeTakeFirst();
  const prefix = (language?.is_default ? "" : `/${instance.locale}`) +
    (model.slug === "pages" ? "" : `/${model.slug}`);
  const from = `${prefix}/${instance.slug}`;
  const to = `${prefix}/${pending.address}`;
  if (pending.address === instance.slug) return { from, to, redirected: false };
  await tx.updateTable("entries").set({ slug: pending.address })
    .where("site_id", "=", siteId).where("id", "=", instance.id).execute();
  // Only a language that was live had an address anyone could have linked to.
  if (instance.published_version_id === null) {
    return { from, to, redirected: false };
  }
  const redirected = await addRedirect(tx, scope.now, siteId, from, to);
  return { from, to, redirected };
}

async function addRedirect(
  tx: Db,
  now: Date,
  siteId: string,
  from: string,
  to: string,
): Promise<boolean> {
  const stored = await tx.selectFrom("site_settings").select([
    "document",
    "revision",
  ]).where("site_id", "=", siteId).where("key", "=", "seo").forUpdate()
    .executeTakeFirst();
  const parsed = SETTINGS_SCHEMAS.seo.safeParse(
    stored?.document ?? SETTINGS_DEFAULTS.seo,
  );
  // A stored document that no longer reads is left for a person to fix, not rewritten.
  if (!parsed.success) return false;
  const seo = parsed.data;
  const redirects = seo.redirects
    .filter((r) => !(r.match === "exact" && (r.from === from || r.from === to)))
    .map((r) => r.to === from ? { ...r, to } : r);
  if (
    redirects.filter((r) => r.match === "exact").length >= EXACT_REDIRECTS_MAX
  ) {
    return false;
  }
  redirects.push({ from, match: "exact", status: 301, to });
  const row = {
    site_id: siteId,
    key: "seo",
    document: JSON.stringify({ ...seo, redirects }),
    revision: (stored?.revision ?? 0) + 1,
    updated_at: now,
    updated_by: null,
  };
  forgetSettingsRead(tx);
  if (stored) {
    await tx.updateTable("site_settings").set(row).where("site_id", "=", siteId)
      .where("key", "=", "seo").execute();
  } else {
    await tx.insertInto("site_settings").values(row).execute();
  }
  return true;
}
