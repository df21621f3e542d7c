// The bytes of an invocation's exchange (its code request and the answer Stave gave), so the
// service can hold request, exchange and answer together to the invocation's 64 KB (OUT-022)
// even when the exchange is served by another process than the one waiting for the answer.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table plugin_invocations add column exchange_bytes integer`
    .execute(db);
}
