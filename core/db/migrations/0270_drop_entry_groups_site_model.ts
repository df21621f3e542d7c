// `entry_groups_site_model (site_id, model_id)` is the leading half of the admin lists' two
// indexes (0231), which serve every lookup it served. Each index of `entry_groups` is written on
// every create, and on every save and publish too, since those change `updated_at`, which an
// index holds, so the row never takes PostgreSQL's in-place (HOT) update: one index fewer is one
// entry fewer written per write.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index entry_groups_site_model`.execute(db);
}
