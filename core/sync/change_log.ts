// Writes the sync change log inside the publication transaction: one ordered row per language
// whose served state changed (spec 3 part 4.5). Diffs what `public_items` serves, so it runs after that refresher.
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import {
  type PublicationChange,
  type TrailingText,
  type TrailingWrite,
  trailingWrite,
} from "../entries/publication_change.ts";

/** Changes older than this are pruned; a cursor that needs them is answered `409 reset_required`. */
export const SYNC_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Compares what each requested language of the group serves now (`public_items`, refreshed in
 * this transaction by the refresher before this one, which left its rows on `change`) with what
 * the log last recorded, and appends an `upsert` or `delete` per language that changed.
 * Sequence numbers come from a per-site counter row updated under its row lock, so they follow
 * commit order and a reader never sees a gap fill in behind it.
 */
export async function refreshSyncLog(
  tx: Db,
  change: PublicationChange,
): Promise<void> {
  const { siteId, groupId } = change;
  const served = change.served ??
    await tx.selectFrom("public_items")
      .select([
        "model_id",
        "requested_locale",
        "entry_id",
        "version_id",
        "slug",
        "published_at",
      ])
      .where("site_id", "=", siteId).where("group_id", "=", groupId).execute();
  const recorded = change.recorded ?? await tx.selectFrom("sync_entry_state")
    .select(["locale", "model_id", "fingerprint"])
    .where("site_id", "=", siteId).where("group_id", "=", groupId).execute();
  const now = new Map(
    served.map((r) => [r.requested_locale, {
      model_id: r.model_id,
      fingerprint: [
        r.entry_id,
        r.version_id,
        r.slug,
        new Date(r.published_at).toISOString(),
      ].join("|"),
    }]),
  );
  const before = new Map(recorded.map((r) => [r.locale, r]));
  const changes: SyncChange[] = [];
  for (const [locale, cur] of now) {
    if (before.get(locale)?.fingerprint !== cur.fingerprint) {
      changes.push({ locale, ...cur, kind: "upsert" });
    }
  }
  for (const [locale, old] of before) {
    if (!now.has(locale)) {
      changes.push({
        locale,
        model_id: old.model_id,
        kind: "delete",
        fingerprint: null,
      });
    }
  }
  if (changes.length === 0) return;
  changes.sort((a, b) => a.locale < b.locale ? -1 : 1);
  await logChanges(tx, change, changes);
}

/** One language's change for the log, with the fingerprint it now has (null when gone). */
interface SyncChange {
  locale: string;
  model_id: string;
  kind: "upsert" | "delete";
  fingerprint: string | null;
}

/**
 * Writes `changes` (in log order) in one statement: takes their sequence numbers from the
 * site's counter row as {@linkcode advanceSyncSeq} does, appends them to the log, and moves the
 * recorded state (gone languages deleted, the others upserted; the two sets never share a row).
 * In a refresh it runs last, in the statement of the refresh's other trailing writes.
 */
async function logChanges(
  tx: Db,
  change: PublicationChange,
  changes: readonly SyncChange[],
): Promise<void> {
  const kept = changes.filter((c) => c.fingerprint !== null);
  const write: TrailingWrite<SyncLogValues> = {
    build: kept.length === 0 ? logAll : logAndKeep,
    values: {
      siteId: change.siteId,
      groupId: change.groupId,
      at: new Date(),
      count: changes.length,
      locales: changes.map((c) => c.locale),
      modelIds: changes.map((c) => c.model_id),
      kinds: changes.map((c) => c.kind),
      gone: changes.filter((c) => c.fingerprint === null).map((c) => c.locale),
      keptLocales: kept.map((c) => c.locale),
      keptModelIds: kept.map((c) => c.model_id),
      keptFingerprints: kept.map((c) => c.fingerprint!),
    },
  };
  // Nothing after it in the refresh reads the log: it may run with the other last writes.
  await trailingWrite(tx, change, write);
}

type SyncLogValues = {
  siteId: string;
  groupId: string;
  at: Date;
  count: number;
  /** The changes in log order, column by column. */
  locales: string[];
  modelIds: string[];
  kinds: string[];
  /** Languages whose recorded state goes. */
  gone: string[];
  /** Languages whose recorded state is upserted, column by column. */
  keptLocales: string[];
  keptModelIds: string[];
  keptFingerprints: string[];
};

/** {@linkcode logChanges}'s write, with the recorded states it upserts (none: `keep` false). */
function logOf(keep: boolean) {
  return (v: SyncLogValues): TrailingText => ({
    with: [
      [
        "sync_counter",
        sql`
      insert into sync_sites (site_id, last_seq, pruned_through)
      values (${v.siteId}, ${v.count}, 0)
      on conflict (site_id) do update set last_seq = sync_sites.last_seq + excluded.last_seq
      returning last_seq`,
      ],
      [
        "sync_logged",
        // Numbered from 1 in log order: the last takes the counter's new value.
        sql`
      insert into sync_changes (site_id, seq, group_id, model_id, locale, kind, created_at)
      select ${v.siteId}::uuid, sync_counter.last_seq - ${v.count}::int + c.ord,
        ${v.groupId}::uuid, c.model_id, c.locale, c.kind, ${v.at}::timestamptz
      from sync_counter cross join unnest(${v.locales}::text[], ${v.modelIds}::text[],
        ${v.kinds}::text[]) with ordinality as c(locale, model_id, kind, ord)`,
      ],
      [
        "sync_forgotten",
        sql`
      delete from sync_entry_state
      where site_id = ${v.siteId} and group_id = ${v.groupId}
        and locale = any(${v.gone}::text[])`,
      ],
    ],
    last: keep
      ? sql`
    insert into sync_entry_state (site_id, group_id, locale, model_id, fingerprint)
    select ${v.siteId}::uuid, ${v.groupId}::uuid, k.locale, k.model_id, k.fingerprint
    from unnest(${v.keptLocales}::text[], ${v.keptModelIds}::text[],
      ${v.keptFingerprints}::text[]) as k(locale, model_id, fingerprint)
    on conflict (site_id, group_id, locale) do update
      set model_id = excluded.model_id, fingerprint = excluded.fingerprint`
      : sql`select`,
  });
}

const logAndKeep = logOf(true);
const logAll = logOf(false);

/**
 * Takes `count` sequence numbers from the site's counter row and answers the first. One
 * upsert, under the row's lock until the transaction ends, so sequence order is commit order
 * and a reader never sees a gap fill in behind it.
 */
export async function advanceSyncSeq(
  tx: Db,
  siteId: string,
  count: number,
): Promise<number> {
  const bumped = await tx.insertInto("sync_sites").values({
    site_id: siteId,
    last_seq: count,
    pruned_through: 0,
  }).onConflict((oc) =>
    oc.column("site_id").doUpdateSet({
      last_seq: sql`sync_sites.last_seq + excluded.last_seq`,
    })
  ).returning("last_seq").executeTakeFirstOrThrow();
  return Number(bumped.last_seq) - count + 1;
}

/**
 * Deletes changes recorded before `now - SYNC_RETENTION_MS` and remembers the highest pruned
 * sequence, so cursors that needed them are answered `409 reset_required`. Run it from a cron.
 */
export async function pruneSyncChanges(
  db: Db,
  siteId: string,
  now: Date,
): Promise<number> {
  const cutoff = new Date(now.getTime() - SYNC_RETENTION_MS);
  return await db.transaction().execute(async (tx) => {
    const last = await tx.selectFrom("sync_changes")
      .select((eb) => eb.fn.max("seq").as("seq"))
      .where("site_id", "=", siteId).where("created_at", "<", cutoff)
      .executeTakeFirst();
    const through = last?.seq == null ? null : Number(last.seq);
    if (through === null) return 0;
    const removed = await tx.deleteFrom("sync_changes")
      .where("site_id", "=", siteId).where("seq", "<=", through)
      .executeTakeFirst();
    await tx.updateTable("sync_sites")
      .set({ pruned_through: sql`greatest(pruned_through, ${through})` })
      .where("site_id", "=", siteId).execute();
    return Number(removed.numDeletedRows);
  });
}
