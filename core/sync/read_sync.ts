// Answers one page of `/v1/_sync`: a bounded snapshot, then ordered changes and tombstones (spec 3 part 4.5).
import type { Db } from "../db/database.ts";
import type { StoredModel } from "../models/store_rows.ts";
import { readLocalePlan } from "../public/projection.ts";
import type { SiteRecord } from "../sites/site_store.ts";
import {
  decodeSyncCursor,
  encodeSyncCursor,
  type SyncBinding,
  type SyncCursor,
  type SyncPosition,
} from "./checkpoint.ts";
import { SYNC_RETENTION_MS } from "./change_log.ts";
import { type PublishedItem, toPublishedItem } from "./item.ts";
import { schemaIdentity } from "./schema_identity.ts";

/** Page size of `/v1/_sync` (spec 3 part 8). */
export const SYNC_LIMITS = { min: 1, max: 100, default: 50 } as const;

/** What the caller may read and asked for; the route parses and validates the query first. */
export interface SyncOptions {
  site: SiteRecord;
  /** Models this caller may read: every public model plus the token's scoped private ones. */
  models: readonly StoredModel[];
  /** `public`, or the id of the site API token used. */
  scope: string;
  limit: number;
  cursor?: string;
  /** A model slug. */
  model?: string;
  locale?: string;
}

/** One ordered change of a page: what the client applies, in order. */
export interface SyncChange {
  kind: "upsert" | "delete";
  id: string;
  model: string;
}

/** The sync answer (spec 3 part 2.1). */
export interface SyncAnswer {
  data: PublishedItem[];
  deleted: { id: string; model: string; locale: string }[];
  changes: SyncChange[];
  phase: "snapshot" | "changes";
  next_cursor: string | null;
  checkpoint: string | null;
  reset_reason: null;
}

/** Refusals of {@link readSync}. */
export type SyncRefusal =
  | { ok: false; code: "sync_query_invalid"; message: string }
  | {
    ok: false;
    code: "reset_required";
    reset_reason: "checkpoint_expired" | "changes_pruned" | "scope_changed";
  }
  | { ok: false; code: "sync_dependency_unavailable" };

/** The context: database and clock. */
export interface SyncContext {
  db: Db;
  clock: { now(): Date };
}

const invalid = (message: string): SyncRefusal => ({
  ok: false,
  code: "sync_query_invalid",
  message,
});

/** Reads one page of sync for `options`, or refuses. */
export async function readSync(
  ctx: SyncContext,
  options: SyncOptions,
): Promise<{ ok: true; answer: SyncAnswer } | SyncRefusal> {
  const { db } = ctx;
  const { site } = options;
  let cursor: SyncCursor | null = null;
  if (options.cursor !== undefined) {
    cursor = await decodeSyncCursor(db, options.cursor);
    if (!cursor) return invalid("Cannot read the cursor: send it unmodified");
    const b = cursor.binding;
    if (b.site !== site.id || b.scope !== options.scope) {
      return invalid("The cursor belongs to another site or token scope");
    }
  }
  let model: StoredModel | null = null;
  const modelSlug = options.model;
  if (modelSlug !== undefined) {
    model = options.models.find((m) => m.slug === modelSlug) ?? null;
    if (!model) return invalid(`Unknown model "${modelSlug}"`);
  }
  const locale = options.locale ?? cursor?.binding.locale ??
    site.defaultLanguage;
  if (!site.languages.includes(locale)) {
    return invalid(`Unknown language "${locale}"`);
  }
  if (cursor) {
    const b = cursor.binding;
    if (modelSlug === undefined && b.model !== null) {
      model = options.models.find((m) => m.id === b.model) ?? null;
      // The model left this caller's scope: what the client holds can no longer be trusted.
      if (!model) {
        return {
          ok: false,
          code: "reset_required",
          reset_reason: "scope_changed",
        };
      }
    }
    if ((model?.id ?? null) !== b.model || locale !== b.locale) {
      return invalid("The cursor belongs to another model or language");
    }
  }
  const inScope = model ? [model] : [...options.models];
  const plan = await readLocalePlan(db, site.id);
  const binding: SyncBinding = {
    site: site.id,
    model: model?.id ?? null,
    locale,
    scope: options.scope,
    schema: await schemaIdentity({
      defaultLocale: site.defaultLanguage,
      locales: site.languages,
      policy: plan?.policy ?? null,
      models: inScope,
    }),
  };
  const now = ctx.clock.now();
  if (cursor) {
    if (cursor.binding.schema !== binding.schema) {
      return {
        ok: false,
        code: "reset_required",
        reset_reason: "scope_changed",
      };
    }
    if (now.getTime() - cursor.issuedAt > SYNC_RETENTION_MS) {
      return {
        ok: false,
        code: "reset_required",
        reset_reason: "checkpoint_expired",
      };
    }
  }
  let counters: { last_seq: number; pruned_through: number };
  try {
    const row = await db.selectFrom("sync_sites")
      .select(["last_seq", "pruned_through"]).where("site_id", "=", site.id)
      .executeTakeFirst();
    counters = {
      last_seq: Number(row?.last_seq ?? 0),
      pruned_through: Number(row?.pruned_through ?? 0),
    };
  } catch {
    return { ok: false, code: "sync_dependency_unavailable" };
  }
  const position: SyncPosition = cursor?.position ??
    { phase: "snapshot", after: null, highWater: counters.last_seq };
  const from = position.phase === "snapshot"
    ? position.highWater
    : position.afterSeq;
  if (from < counters.pruned_through) {
    return {
      ok: false,
      code: "reset_required",
      reset_reason: "changes_pruned",
    };
  }
  const sign = (p: SyncPosition) =>
    encodeSyncCursor(db, { binding, position: p, issuedAt: now.getTime() });
  const byId = new Map(inScope.map((m) => [m.id, m]));
  const modelIds = [...byId.keys()];
  const answer: SyncAnswer = {
    data: [],
    deleted: [],
    changes: [],
    phase: position.phase,
    next_cursor: null,
    checkpoint: null,
    reset_reason: null,
  };
  if (modelIds.length === 0) {
    answer.phase = "changes";
    answer.checkpoint = await sign({
      phase: "changes",
      afterSeq: counters.last_seq,
    });
    return { ok: true, answer };
  }
  if (position.phase === "snapshot") {
    let query = db.selectFrom("public_items")
      .select([
        "group_id",
        "model_id",
        "served_locale",
        "slug",
        "version_number",
        "published_at",
        "fields",
      ])
      .where("site_id", "=", site.id).where("requested_locale", "=", locale)
      .where("model_id", "in", modelIds);
    if (position.after !== null) {
      query = query.where("group_id", ">", position.after);
    }
    const rows = await query.orderBy("group_id").limit(options.limit + 1)
      .execute();
    const page = rows.slice(0, options.limit);
    answer.data = page.map((r) => toPublishedItem(r, byId.get(r.model_id)!));
    answer.next_cursor = rows.length > options.limit
      ? await sign({
        phase: "snapshot",
        after: page.at(-1)!.group_id,
        highWater: position.highWater,
      })
      : await sign({ phase: "changes", afterSeq: position.highWater });
    return { ok: true, answer };
  }
  let changes;
  try {
    changes = await db.selectFrom("sync_changes")
      .select(["seq", "group_id", "model_id"])
      .where("site_id", "=", site.id).where("seq", ">", position.afterSeq)
      .where("locale", "=", locale).where("model_id", "in", modelIds)
      .orderBy("seq").limit(options.limit + 1).execute();
  } catch {
    return { ok: false, code: "sync_dependency_unavailable" };
  }
  const page = changes.slice(0, options.limit);
  const groups = [...new Set(page.map((c) => c.group_id))];
  const current = groups.length === 0 ? [] : await db.selectFrom("public_items")
    .select([
      "group_id",
      "model_id",
      "served_locale",
      "slug",
      "version_number",
      "published_at",
      "fields",
    ])
    .where("site_id", "=", site.id).where("requested_locale", "=", locale)
    .where("group_id", "in", groups).where("model_id", "in", modelIds)
    .execute();
  const live = new Map(current.map((r) => [r.group_id, r]));
  // Each group once, at its last change of the page: the client applies its state as of now.
  const last = new Map(page.map((c, i) => [c.group_id, i]));
  page.forEach((c, i) => {
    if (last.get(c.group_id) !== i) return;
    const slug = byId.get(c.model_id)!.slug;
    const row = live.get(c.group_id);
    if (row) {
      answer.data.push(toPublishedItem(row, byId.get(row.model_id)!));
      answer.changes.push({ kind: "upsert", id: c.group_id, model: slug });
    } else {
      answer.deleted.push({ id: c.group_id, model: slug, locale });
      answer.changes.push({ kind: "delete", id: c.group_id, model: slug });
    }
  });
  const lastSeq = Number(page.at(-1)?.seq ?? position.afterSeq);
  if (changes.length > options.limit) {
    answer.next_cursor = await sign({ phase: "changes", afterSeq: lastSeq });
  } else {
    answer.checkpoint = await sign({ phase: "changes", afterSeq: lastSeq });
  }
  return { ok: true, answer };
}
