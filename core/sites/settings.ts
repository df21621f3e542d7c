// Reads and writes the site-level settings documents, validated and pinned to their revision.
import { type DocumentProblem, documentProblems } from "../web/zod_issues.ts";
import { sql } from "kysely";
import type { Actor } from "../access/actor.ts";
import type { Clock } from "../clock.ts";
import { snapshotActor } from "../entries/actor_snapshot.ts";
import type { Db } from "../db/database.ts";
import { transactionMemo } from "../db/transaction_memo.ts";
import { rebuildPublicItems } from "../public/projection.ts";
import { activeTemplateRegions } from "../templates/active_regions.ts";
import {
  SETTINGS_DEFAULTS,
  SETTINGS_SCHEMAS,
  type SettingsDocument,
  type SettingsKey,
} from "./settings_documents.ts";
import { SETTINGS_COLUMNS } from "../db/row_columns.ts";
import { copyJson } from "../json_copy.ts";

/** A settings document as stored now; revision 0 means the defaults were never changed. */
export interface StoredSettings<K extends SettingsKey> {
  key: K;
  document: SettingsDocument<K>;
  revision: number;
  updated_at: string | null;
}

/** One reason a document was refused, with the path inside it (unknown keys marked). */
export type SettingsProblem = DocumentProblem;

/** Refusals of {@link putSettings}. */
export type PutSettingsRefusal =
  | { ok: false; code: "input_invalid"; problems: SettingsProblem[] }
  | { ok: false; code: "conflict"; current_revision: number }
  | {
    ok: false;
    code: "unknown_region";
    region: string;
    problems: SettingsProblem[];
  };

/** Context of settings commands; permission checks happen before the call. */
export interface SettingsContext {
  db: Db;
  clock: Clock;
  siteId: string;
  /** The person acting (for a credential: its creator). */
  personId: string | null;
  /**
   * Who writes and under which idempotency key: a write then records its answer in a
   * `settings.put` audit entry in its own transaction, so a lost answer can be proved from it.
   */
  record?: { actor: Actor; keyDigest: string | null };
}

/** The audit action of a settings write made with a {@link SettingsContext.record}. */
export const SETTINGS_PUT_ACTION = "settings.put";

// An entry command reads the editorial settings for its review state, its checks and its
// validation: one read per transaction serves them all. Writers forget them (forgetSettingsRead).
const documentsRead = transactionMemo<StoredSettings<SettingsKey>>();

/** Forgets the documents {@linkcode getSettings} read in this transaction: call after writing one. */
export function forgetSettingsRead(db: Db): void {
  documentsRead.forget(db);
}

/**
 * Reads one document, or its defaults with revision 0. Inside a transaction a document is read
 * once; each caller gets its own copy.
 */
export async function getSettings<K extends SettingsKey>(
  ctx: { db: Db; siteId: string },
  key: K,
): Promise<StoredSettings<K>> {
  if (!ctx.db.isTransaction) return await readSettings(ctx, key);
  const found = await documentsRead.once(
    ctx.db,
    `${ctx.siteId}/${key}`,
    () => readSettings(ctx, key),
  );
  return copyJson(found) as StoredSettings<K>;
}

/** Whether this transaction has read the document already (then {@linkcode getSettings} reads nothing). */
export function settingsHeld(
  ctx: { db: Db; siteId: string },
  key: SettingsKey,
): boolean {
  return documentsRead.holds(ctx.db, `${ctx.siteId}/${key}`);
}

/**
 * The document of a `site_settings` row (undefined: none stored) that a caller read in a
 * statement of its own; inside a transaction it is kept as {@linkcode getSettings} would keep it.
 */
export function settingsFromRow<K extends SettingsKey>(
  ctx: { db: Db; siteId: string },
  key: K,
  row: { document: unknown; revision: number; updated_at: Date } | undefined,
): StoredSettings<K> {
  const stored = storedSettingsOf(key, row);
  documentsRead.keep(
    ctx.db,
    `${ctx.siteId}/${key}`,
    stored as StoredSettings<SettingsKey>,
  );
  return copyJson(stored);
}

async function readSettings<K extends SettingsKey>(
  ctx: { db: Db; siteId: string },
  key: K,
): Promise<StoredSettings<K>> {
  const row = await ctx.db.selectFrom("site_settings").select(SETTINGS_COLUMNS)
    .where("site_id", "=", ctx.siteId).where("key", "=", key)
    .executeTakeFirst();
  return storedSettingsOf(key, row);
}

function storedSettingsOf<K extends SettingsKey>(
  key: K,
  row: { document: unknown; revision: number; updated_at: Date } | undefined,
): StoredSettings<K> {
  if (!row) {
    return {
      key,
      document: copyJson(SETTINGS_DEFAULTS[key]),
      revision: 0,
      updated_at: null,
    };
  }
  return {
    key,
    document: row.document as SettingsDocument<K>,
    revision: row.revision,
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * Reads one document and checks it against its schema as it is today: null when the stored
 * document no longer reads (a schema that tightened since it was saved).
 */
export async function readCheckedSettings<K extends SettingsKey>(
  ctx: { db: Db; siteId: string },
  key: K,
): Promise<SettingsDocument<K> | null> {
  const stored = await getSettings(ctx, key);
  const parsed = SETTINGS_SCHEMAS[key].safeParse(stored.document);
  return parsed.success ? parsed.data as SettingsDocument<K> : null;
}

/**
 * Replaces one document when `expectedRevision` is the stored revision; the whole document is
 * validated against its closed schema and the site's languages, and nothing changes on refusal.
 */
export async function putSettings<K extends SettingsKey>(
  ctx: SettingsContext,
  key: K,
  input: { document: unknown; expectedRevision: number },
): Promise<{ ok: true; settings: StoredSettings<K> } | PutSettingsRefusal> {
  const parsed = SETTINGS_SCHEMAS[key].safeParse(input.document);
  if (!parsed.success) {
    return {
      ok: false,
      code: "input_invalid",
      problems: documentProblems(parsed.error.issues),
    };
  }
  const document = parsed.data as SettingsDocument<K>;
  const languages = (await ctx.db.selectFrom("site_languages").select("code")
    .where("site_id", "=", ctx.siteId).execute()).map((r) => r.code);
  const problems = languageProblems(key, document, languages);
  if (problems.length > 0) {
    return { ok: false, code: "input_invalid", problems };
  }
  if (key === "chrome") {
    const refused = await undeclaredRegion(
      ctx,
      document as SettingsDocument<"chrome">,
    );
    if (refused) return refused;
  }
  const now = ctx.clock.now();
  return await ctx.db.transaction().execute(async (trx) => {
    forgetSettingsRead(trx);
    const current = await trx.selectFrom("site_settings").select("revision")
      .where("site_id", "=", ctx.siteId).where("key", "=", key).forUpdate()
      .executeTakeFirst();
    const revision = current?.revision ?? 0;
    if (revision !== input.expectedRevision) {
      return {
        ok: false as const,
        code: "conflict" as const,
        current_revision: revision,
      };
    }
    const row = {
      site_id: ctx.siteId,
      key,
      document: JSON.stringify(document),
      revision: revision + 1,
      updated_at: now,
      updated_by: ctx.personId,
    };
    const written = current
      ? await trx.updateTable("site_settings").set(row).where(
        "site_id",
        "=",
        ctx.siteId,
      )
        .where("key", "=", key).where("revision", "=", revision)
        .executeTakeFirst()
      : await trx.insertInto("site_settings").values(row).onConflict((oc) =>
        oc.doNothing()
      )
        .executeTakeFirst();
    const changed = "numUpdatedRows" in written
      ? written.numUpdatedRows
      : written.numInsertedOrUpdatedRows;
    if (changed !== 1n) {
      return {
        ok: false as const,
        code: "conflict" as const,
        current_revision: revision + 1,
      };
    }
    if (key === "language-fallback") await rebuildPublicItems(trx, ctx.siteId);
    const settings: StoredSettings<K> = {
      key,
      document,
      revision: revision + 1,
      updated_at: now.toISOString(),
    };
    if (ctx.record) {
      await trx.insertInto("audit_entries").values({
        id: crypto.randomUUID(),
        site_id: ctx.siteId,
        actor: JSON.stringify(
          await snapshotActor(trx, ctx.siteId, ctx.record.actor),
        ),
        action: SETTINGS_PUT_ACTION,
        target: JSON.stringify({ kind: "settings", key }),
        details: JSON.stringify({
          settings,
          ...(ctx.record.keyDigest
            ? { idempotency_key_digest: ctx.record.keyDigest }
            : {}),
        }),
        created_at: now,
      }).execute();
    }
    return { ok: true as const, settings };
  });
}

/** The document a settings write under `keyDigest` stored, read back from its audit entry. */
export async function findSettingsWrite(
  db: Db,
  siteId: string,
  key: SettingsKey,
  keyDigest: string,
): Promise<StoredSettings<SettingsKey> | null> {
  const row = await db.selectFrom("audit_entries").select("details")
    .where("site_id", "=", siteId).where("action", "=", SETTINGS_PUT_ACTION)
    .where(sql<string>`details->>'idempotency_key_digest'`, "=", keyDigest)
    .executeTakeFirst();
  const details =
    (typeof row?.details === "string"
      ? JSON.parse(row.details)
      : row?.details) as { settings?: StoredSettings<SettingsKey> } | undefined;
  return details?.settings?.key === key ? details.settings : null;
}

/**
 * Content saved into a region the active template does not declare is refused `unknown_region`
 * (spec 3 part 4.8 rule 7, TPL-033); content of a region an earlier template declared may stay
 * while it is left as it was, so accepting a new template never makes Site Chrome unsavable.
 */
async function undeclaredRegion(
  ctx: { db: Db; siteId: string },
  document: SettingsDocument<"chrome">,
): Promise<Extract<PutSettingsRefusal, { code: "unknown_region" }> | null> {
  const regions = Object.keys(document.regions ?? {});
  if (regions.length === 0) return null;
  const declared = new Set(
    (await activeTemplateRegions(ctx.db, ctx.siteId)).map((r) => r.key),
  );
  const stored = (await getSettings(ctx, "chrome")).document.regions ?? {};
  for (const key of regions) {
    if (declared.has(key)) continue;
    const unchanged = Object.hasOwn(stored, key) &&
      JSON.stringify(stored[key]) === JSON.stringify(document.regions![key]);
    if (unchanged) continue;
    return {
      ok: false,
      code: "unknown_region",
      region: key,
      problems: [{
        path: `regions.${key}`,
        message: `The active template declares no region "${key}"`,
      }],
    };
  }
  return null;
}

/** Language codes named inside a document must be languages of the site. */
function languageProblems(
  key: SettingsKey,
  document: unknown,
  languages: string[],
): SettingsProblem[] {
  const known = new Set(languages);
  const problems: SettingsProblem[] = [];
  const check = (code: string, path: string) => {
    if (!known.has(code)) {
      problems.push({ path, message: `Unknown language "${code}"` });
    }
  };
  if (key === "language-fallback") {
    const { chains } = document as SettingsDocument<"language-fallback">;
    for (const [from, chain] of Object.entries(chains)) {
      check(from, `chains.${from}`);
      chain.forEach((to, i) => {
        check(to, `chains.${from}.${i}`);
        if (to === from) {
          problems.push({
            path: `chains.${from}.${i}`,
            message: `"${from}" cannot fall back to itself`,
          });
        }
      });
      if (new Set(chain).size !== chain.length) {
        problems.push({
          path: `chains.${from}`,
          message: "A language appears twice in the chain",
        });
      }
    }
  }
  if (key === "chrome") {
    for (
      const code of Object.keys(
        (document as SettingsDocument<"chrome">).footer_note,
      )
    ) {
      check(code, `footer_note.${code}`);
    }
    const regions = (document as SettingsDocument<"chrome">).regions ?? {};
    for (const [key, blocks] of Object.entries(regions)) {
      blocks.forEach((block, i) => {
        for (const code of Object.keys(block.title ?? {})) {
          check(code, `regions.${key}.${i}.title.${code}`);
        }
      });
    }
  }
  return problems;
}
