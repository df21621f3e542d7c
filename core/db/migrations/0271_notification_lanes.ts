// The notification pump claims each installation's due rows on their own (core/plugins/
// notifications.ts), so one slow plugin holds back only its own notifications: the due index leads
// with the installation. Finished rows are kept a week for whoever looks into a delivery, then
// pruned by their last change, which the second index finds without reading the pending ones.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index plugin_notifications_due;
    create index plugin_notifications_due on plugin_notifications
      (installation_id, next_attempt_at) where status = 'pending';
    create index plugin_notifications_finished on plugin_notifications (updated_at)
      where status <> 'pending';
  `.execute(db);
}
