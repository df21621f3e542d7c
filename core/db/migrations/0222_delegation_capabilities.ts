// A delegation made for a management credential keeps the capabilities its scopes allow
// (spec 2 part 4.3 scope-to-capability mapping; MPL-006): later plugin commands outside them
// are `capability_refused`. Null for a person's own launch: the installation's grant applies.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table plugin_delegations add column capabilities jsonb`
    .execute(db);
}
