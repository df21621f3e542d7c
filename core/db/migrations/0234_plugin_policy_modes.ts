// An administrator's choice of how each content policy of an installation runs (AUD-012): a
// policy id maps to `blocking`, `advisory` or `off`; a policy not named runs in its declared mode.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table plugin_installations
      add column policy_modes jsonb not null default '{}'::jsonb;
  `.execute(db);
}
