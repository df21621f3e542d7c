// Your own database connection, when the generated one (PostgreSQL at DATABASE_URL, else the
// embedded database in ./data) does not suit, for example a pooled or serverless driver. Say
// what the driver can do: without transactions (`batch: false`) relation writes answer
// 503 relation_writes_unavailable; without great-circle SQL (`spatial: false`) spatial queries
// answer 501 spatial_adapter_required. Migrations still need a driver with transactions: run
// `deno task migrate` against the database directly. See README "Customising".
import type { OpenDb } from "../src/db.ts";

/** Opens your database; null keeps the generated connection. */
export const openDatabase: (() => Promise<OpenDb>) | null = null;
