// Page addresses waiting for publication (page_pending_addresses), and whether an address is free:
// no other entry of the model holds it in the language, neither live nor waiting.
import type { Db } from "../db/database.ts";
import type { InstanceRow } from "../entries/store.ts";

/** True when another entry of the model holds `address` in the language, live or pending. */
export async function addressHeld(
  db: Db,
  siteId: string,
  instance: InstanceRow,
  address: string,
): Promise<boolean> {
  const live = await db.selectFrom("entries").select("id")
    .where("site_id", "=", siteId).where("model_id", "=", instance.model_id)
    .where("locale", "=", instance.locale).where("slug", "=", address)
    .where("id", "!=", instance.id).executeTakeFirst();
  if (live) return true;
  const pending = await db.selectFrom("page_pending_addresses as p")
    .innerJoin("entries as e", "e.id", "p.entry_id").select("p.entry_id")
    .where("p.site_id", "=", siteId).where("p.address", "=", address)
    .where("e.model_id", "=", instance.model_id)
    .where("e.locale", "=", instance.locale)
    .where("e.id", "!=", instance.id).executeTakeFirst();
  return pending !== undefined;
}

/** Records `address` (null: none) as the language's address from its next publication. */
export async function recordPendingAddress(
  db: Db,
  row: {
    site_id: string;
    entry_id: string;
    version_id: string;
    address: string | null;
    created_at: Date;
  },
): Promise<void> {
  await db.insertInto("page_pending_addresses").values(row)
    .onConflict((oc) =>
      oc.column("entry_id").doUpdateSet({
        version_id: row.version_id,
        address: row.address,
        created_at: row.created_at,
      })
    ).execute();
}

/**
 * Drops the language's waiting address: it keeps its live one. A waiting removal of the address
 * (null, set through /pages/{id}/address) stays: a save that names the live slug does not undo it.
 */
export async function dropPendingAddress(
  db: Db,
  siteId: string,
  entryId: string,
): Promise<void> {
  await db.deleteFrom("page_pending_addresses").where("site_id", "=", siteId)
    .where("entry_id", "=", entryId).where("address", "is not", null)
    .execute();
}
