// Working draft rows and their reader-facing shape.
import type { Selectable } from "kysely";
import type { Db } from "../db/database.ts";
import type { EntryDraftsTable } from "../db/schema.ts";

/** A stored working draft row. */
export type DraftRow = Selectable<EntryDraftsTable>;

/** A person named by id and email (email kept so attribution outlives the account). */
export interface Person {
  person_id: string;
  email: string;
}

/** One person's working draft of one entry language. */
export interface WorkingDraft {
  group_id: string;
  locale: string;
  /** The person whose unsaved work this is. */
  holder: Person;
  fields: Record<string, unknown>;
  /** The saved version the work started from; null for a language not saved yet. */
  base_version_id: string | null;
  /** Starts at 1 and moves with every write and takeover; writes pin it. */
  revision: number;
  /** Who held the draft before the last takeover; null when never taken over. */
  taken_over_from: Person | null;
  taken_over_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The draft of one entry language on the site, or undefined. */
export async function readDraftRow(
  db: Db,
  siteId: string,
  groupId: string,
  locale: string,
): Promise<DraftRow | undefined> {
  return await db.selectFrom("entry_drafts").selectAll()
    .where("site_id", "=", siteId).where("group_id", "=", groupId)
    .where("locale", "=", locale).executeTakeFirst();
}

/** The person holding a draft, with their email now. */
export async function holderOf(db: Db, personId: string): Promise<Person> {
  const user = await db.selectFrom("users").select("email")
    .where("id", "=", personId).executeTakeFirstOrThrow();
  return { person_id: personId, email: user.email };
}

/** The row as its holder sees it. */
export async function presentDraft(
  db: Db,
  row: DraftRow,
): Promise<WorkingDraft> {
  return {
    group_id: row.group_id,
    locale: row.locale,
    holder: await holderOf(db, row.holder_id),
    fields: row.fields as Record<string, unknown>,
    base_version_id: row.base_version_id,
    revision: row.revision,
    taken_over_from: (row.taken_over_from ?? null) as Person | null,
    taken_over_at: row.taken_over_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
