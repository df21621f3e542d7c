// Starts the generated backend: reads its settings, checks the access configuration, applies
// migrations, then serves. `deno task start`; `deno task migrate` only migrates.
import { AccessConfigError, Gate, unionAccessConfig } from "./src/access.ts";
import { buildApp } from "./src/app.ts";
import { openDb } from "./src/db.ts";
import { DanglingIdsError, migrate } from "./src/migrate.ts";
import { loadSchema } from "./src/schema.ts";
import { customise } from "./custom/routes.ts";

const root = new URL("./", import.meta.url);

/** Prints why the backend cannot start, and exits. */
function refuseBoot(code: string, detail: string): never {
  console.error(`Cannot start (${code}): ${detail}`);
  Deno.exit(1);
}

const schema = await loadSchema(root);
const siteId = Deno.env.get("SITE_ID");
if (siteId && siteId !== schema.site.id) {
  refuseBoot(
    "site_id_mismatch",
    `SITE_ID is not the site this backend was generated for`,
  );
}
let gate: Gate;
try {
  const issued = JSON.parse(
    await Deno.readTextFile(new URL("access/read-tokens.json", root)),
  );
  const config = unionAccessConfig(
    issued,
    Deno.env.get("ACCESS_CONFIG"),
    schema,
  );
  gate = new Gate(config, Deno.env.get("API_BEARER_TOKEN") || null);
} catch (error) {
  if (error instanceof AccessConfigError) {
    refuseBoot(error.code, error.problems.join("; "));
  }
  throw error;
}
const openapi = JSON.parse(
  await Deno.readTextFile(new URL("openapi.json", root)),
);
const { db, engine } = await openDb(
  Deno.env.get("DATABASE_URL"),
  Deno.env.get("DATA_DIR") ?? "./data",
);
try {
  const applied = await migrate(db, root, schema);
  if (applied.length > 0) console.error(`Applied ${applied.join(", ")}`);
} catch (error) {
  if (error instanceof DanglingIdsError) {
    refuseBoot(error.code, JSON.stringify(error.dangling));
  }
  throw error;
}
if (Deno.args[0] === "migrate") {
  await db.destroy();
  Deno.exit(0);
}
const app = buildApp({
  schema,
  db,
  gate,
  openapi,
  commit: Deno.env.get("ARTIFACT_COMMIT") || schema.commit,
  customise,
});
const port = Number(Deno.env.get("PORT") ?? "8787");
Deno.serve({
  port,
  hostname: Deno.env.get("HOST") ?? "127.0.0.1",
  onListen: ({ hostname, port }) =>
    console.error(`Serving on http://${hostname}:${port}/api/ (${engine})`),
}, app.fetch);
