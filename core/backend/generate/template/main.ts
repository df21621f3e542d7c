// Starts the generated backend: reads its settings, checks the access configuration, applies
// migrations, then serves. `deno task start`; `deno task migrate` only migrates.
import { AccessConfigError, Gate, unionAccessConfig } from "./src/access.ts";
import { buildApp } from "./src/app.ts";
import { openDb } from "./src/db.ts";
import { danglingIds, migrate, readSeed } from "./src/migrate.ts";
import { loadSchema } from "./src/schema.ts";
import { changedSecurity } from "./src/security.ts";
import { customise } from "./custom/routes.ts";
import { openDatabase } from "./custom/database.ts";
import { overrides } from "./custom/operations.ts";
import { createOverridesOf, OverrideError } from "./src/overrides.ts";

const root = new URL("./", import.meta.url);

/** Prints why the backend cannot start, and exits. */
function refuseBoot(code: string, detail: string): never {
  console.error(`Cannot start (${code}): ${detail}`);
  Deno.exit(1);
}

const schema = await loadSchema(root);
const security = await Deno.readTextFile(
  new URL("generated/security.json", root),
).then(JSON.parse).catch(() => null);
const changed = changedSecurity(security);
if (changed.length > 0) {
  refuseBoot(
    "security_settings_fixed",
    `generated/security.json must keep the generated values of ${
      changed.join(", ")
    }`,
  );
}
const siteId = Deno.env.get("SITE_ID");
if (siteId && siteId !== schema.site.id) {
  refuseBoot(
    "site_id_mismatch",
    `SITE_ID is not the site this backend was generated for`,
  );
}
let gate: Gate;
try {
  const issuedText = await Deno.readTextFile(
    new URL("access/read-tokens.json", root),
  ).catch(() => null);
  if (issuedText === null) {
    refuseBoot(
      "access_config_missing",
      "access/read-tokens.json is missing; regenerate the backend",
    );
  }
  let issued: unknown;
  try {
    issued = JSON.parse(issuedText);
  } catch {
    throw new AccessConfigError("generated_access_tokens_invalid", [
      "access/read-tokens.json is not JSON",
    ]);
  }
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
let createOverrides;
try {
  createOverrides = createOverridesOf(overrides, schema);
} catch (error) {
  if (error instanceof OverrideError) {
    refuseBoot("operation_override_invalid", error.message);
  }
  throw error;
}
// Relation ids of the seed are checked before the database is touched.
const dangling = danglingIds(schema, await readSeed(root));
if (dangling.length > 0) {
  refuseBoot("relation_ids_dangling", JSON.stringify(dangling));
}
const openapi = JSON.parse(
  await Deno.readTextFile(new URL("openapi.json", root)),
);
const { db, engine, batch, spatial, prepared } = openDatabase
  ? await openDatabase()
  : await openDb(
    Deno.env.get("DATABASE_URL"),
    Deno.env.get("DATA_DIR") ?? "./data",
  );
const applied = await migrate(db, root, schema);
if (applied.length > 0) console.error(`Applied ${applied.join(", ")}`);
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
  privateFiles: Deno.env.get("PRIVATE_FILES_DIR") || null,
  adapters: { batch, spatial, prepared },
  createOverrides,
  customise,
});
const port = Number(Deno.env.get("PORT") ?? "8787");
Deno.serve({
  port,
  hostname: Deno.env.get("HOST") ?? "127.0.0.1",
  onListen: ({ hostname, port }) =>
    console.error(`Serving on http://${hostname}:${port}/api/ (${engine})`),
}, app.fetch);
