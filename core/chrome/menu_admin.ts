// Menus as the Management API edits them: list, read, replace, add a language; audited with the key digest.
import { type DocumentProblem, documentProblems } from "../web/zod_issues.ts";
import { sql } from "kysely";
import type { Actor } from "../access/actor.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { snapshotActor } from "../entries/actor_snapshot.ts";
import { MENU_ITEMS, type MenuItems } from "./menus.ts";
import { unlinkableReason } from "./menu_addresses.ts";
import { loadModels } from "../models/store_rows.ts";

/** A stored menu. */
export interface Menu {
  key: string;
  items: MenuItems;
  /** Languages every item has a label in. */
  languages: string[];
  updated_at: string;
}

/** Context of menu writes; permission checks happen before the call. */
export interface MenuContext {
  db: Db;
  clock: Clock;
  siteId: string;
  actor: Actor;
  /** Digest of the request's idempotency key, kept in the audit entry to prove a lost answer. */
  keyDigest?: string | null;
}

const MENU_KEY = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const WRITE_ACTIONS = ["menu.replace", "menu.language.add"] as const;

function toMenu(row: { key: string; items: unknown; updated_at: Date }): Menu {
  const items = MENU_ITEMS.parse(row.items);
  const all = items.flatMap((i) => [i, ...i.children]);
  const languages = all.length === 0
    ? []
    : Object.keys(all[0].label).filter((lang) =>
      all.every((i) => (i.label[lang] ?? "").trim() !== "")
    ).sort();
  return {
    key: row.key,
    items,
    languages,
    updated_at: row.updated_at.toISOString(),
  };
}

/** Every menu of the site, by key. */
export async function listMenus(db: Db, siteId: string): Promise<Menu[]> {
  const rows = await db.selectFrom("site_menus").select([
    "key",
    "items",
    "updated_at",
  ])
    .where("site_id", "=", siteId).orderBy("key").execute();
  return rows.map(toMenu);
}

/** One menu, or null. */
export async function getMenu(
  db: Db,
  siteId: string,
  key: string,
): Promise<Menu | null> {
  const row = await db.selectFrom("site_menus").select([
    "key",
    "items",
    "updated_at",
  ])
    .where("site_id", "=", siteId).where("key", "=", key).executeTakeFirst();
  return row ? toMenu(row) : null;
}

/** Refusals of menu writes; nothing changes on any of them. */
export type MenuRefusal =
  | {
    ok: false;
    code: "input_invalid";
    problems: DocumentProblem[];
  }
  | { ok: false; code: "not_found" }
  | { ok: false; code: "unknown_locale"; language: string }
  | { ok: false; code: "locale_exists"; language: string };

/** Creates or replaces a menu; labels may name only the site's languages. */
export async function replaceMenu(
  ctx: MenuContext,
  key: string,
  items: unknown,
): Promise<{ ok: true; menu: Menu } | MenuRefusal> {
  const parsed = MENU_ITEMS.safeParse(items);
  const problems: DocumentProblem[] = parsed.success
    ? []
    : documentProblems(parsed.error.issues, "items.");
  if (!MENU_KEY.test(key)) {
    problems.unshift({ path: "key", message: "Expected a-z, 0-9, _ and -" });
  }
  if (parsed.success) {
    const languages = new Set(await siteLanguages(ctx.db, ctx.siteId));
    const models = await loadModels(ctx.db, ctx.siteId, null);
    parsed.data.forEach((item, i) =>
      [item, ...item.children].forEach((leaf, j) => {
        const unlinkable = unlinkableReason(models, leaf);
        if (unlinkable) {
          const at = leaf === item
            ? `items.${i}`
            : `items.${i}.children.${j - 1}`;
          problems.push({
            path: `${at}.${leaf.list !== undefined ? "list" : "archive"}`,
            message: unlinkable,
          });
        }
        for (const lang of Object.keys(leaf.label)) {
          if (!languages.has(lang)) {
            const at = leaf === item
              ? `items.${i}`
              : `items.${i}.children.${j - 1}`;
            problems.push({
              path: `${at}.label.${lang}`,
              message: `Unknown language "${lang}"`,
            });
          }
        }
      })
    );
  }
  if (problems.length > 0 || !parsed.success) {
    return { ok: false, code: "input_invalid", problems };
  }
  return await write(ctx, "menu.replace", key, parsed.data);
}

/** Adds a language to every label of a menu, copied from `copyFrom` (default: the site's default). */
export async function addMenuLanguage(
  ctx: MenuContext,
  key: string,
  input: { language: string; copyFrom?: string },
): Promise<{ ok: true; menu: Menu } | MenuRefusal> {
  const menu = await getMenu(ctx.db, ctx.siteId, key);
  if (!menu) return { ok: false, code: "not_found" };
  const languages = await siteLanguages(ctx.db, ctx.siteId);
  const source = input.copyFrom ?? languages[0];
  for (const lang of [input.language, source]) {
    if (!languages.includes(lang)) {
      return { ok: false, code: "unknown_locale", language: lang };
    }
  }
  if (menu.languages.includes(input.language)) {
    return { ok: false, code: "locale_exists", language: input.language };
  }
  const copy = <T extends { label: Record<string, string> }>(leaf: T): T => ({
    ...leaf,
    label: {
      ...leaf.label,
      [input.language]: leaf.label[input.language] ||
        (leaf.label[source] ?? ""),
    },
  });
  const items = menu.items.map((item) => ({
    ...copy(item),
    children: item.children.map(copy),
  }));
  return await write(ctx, "menu.language.add", key, items);
}

/** The menu a write under `keyDigest` left, when one is recorded: proves a lost answer. */
export async function findMenuWrite(
  db: Db,
  siteId: string,
  keyDigest: string,
): Promise<Menu | null> {
  const row = await db.selectFrom("audit_entries").select("details")
    .where("site_id", "=", siteId).where("action", "in", [...WRITE_ACTIONS])
    .where(sql<string>`details->>'idempotency_key_digest'`, "=", keyDigest)
    .executeTakeFirst();
  const details = row?.details as { menu?: Menu } | undefined;
  return details?.menu ?? null;
}

async function write(
  ctx: MenuContext,
  action: typeof WRITE_ACTIONS[number],
  key: string,
  items: MenuItems,
): Promise<{ ok: true; menu: Menu }> {
  const actor = await snapshotActor(ctx.db, ctx.siteId, ctx.actor);
  const now = ctx.clock.now();
  return await ctx.db.transaction().execute(async (tx) => {
    const row = {
      site_id: ctx.siteId,
      key,
      items: JSON.stringify(items),
      updated_at: now,
    };
    await tx.insertInto("site_menus").values(row)
      .onConflict((oc) =>
        oc.columns(["site_id", "key"]).doUpdateSet({
          items: row.items,
          updated_at: now,
        })
      )
      .execute();
    const menu = toMenu({ key, items, updated_at: now });
    await tx.insertInto("audit_entries").values({
      id: crypto.randomUUID(),
      site_id: ctx.siteId,
      actor: JSON.stringify(actor),
      action,
      target: JSON.stringify({ kind: "menu", key }),
      details: JSON.stringify({
        menu,
        ...(ctx.keyDigest ? { idempotency_key_digest: ctx.keyDigest } : {}),
      }),
      created_at: now,
    }).execute();
    return { ok: true as const, menu };
  });
}

async function siteLanguages(db: Db, siteId: string): Promise<string[]> {
  const rows = await db.selectFrom("site_languages").select([
    "code",
    "is_default",
  ])
    .where("site_id", "=", siteId).orderBy("is_default", "desc").orderBy(
      "position",
    ).execute();
  return rows.map((r) => r.code);
}
