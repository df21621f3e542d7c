// deno task svc <command>: operator commands for scripts and CI (bootstrap, credential, migrate,
// backup and restore of the embedded store).
import { parseArgs } from "node:util";
import { SCOPES } from "../core/access/scopes.ts";
import type { openServices } from "../core/boot.ts";
import { type Config, ConfigError, loadConfig } from "../core/config.ts";
import type { LocalCredentialRequest } from "../core/credentials/local_control.ts";
import { DataFolderInUseError } from "../core/db/data_lock.ts";
import { StartupError, startupMessage } from "../core/startup_error.ts";
import {
  type CommandName,
  COMMANDS,
  type CommandSpec,
  commandUsage,
  overview,
} from "./usage.ts";

// The store and the services load only once a command has parsed its options and is about to
// run, so --help, -h and a usage error answer without them. The specifier goes through a
// variable because Deno loads every literal `import("…")` with the entry module at start: the
// whole graph, about a second of CPU, even when the import never runs.
function later<Module>(path: string): () => Promise<Module> {
  const href = new URL(path, import.meta.url).href;
  return () => import(href);
}
const lazy = {
  boot: later<typeof import("../core/boot.ts")>("../core/boot.ts"),
  localControl: later<typeof import("../core/credentials/local_control.ts")>(
    "../core/credentials/local_control.ts",
  ),
  installation: later<typeof import("../core/sites/installation.ts")>(
    "../core/sites/installation.ts",
  ),
  sites: later<typeof import("../core/sites/site_store.ts")>(
    "../core/sites/site_store.ts",
  ),
  backend: later<typeof import("../core/backend/generate/mod.ts")>(
    "../core/backend/generate/mod.ts",
  ),
  backup: later<typeof import("../core/backup/embedded.ts")>(
    "../core/backup/embedded.ts",
  ),
  move: later<typeof import("../core/backup/move_to_postgres.ts")>(
    "../core/backup/move_to_postgres.ts",
  ),
  snapshot: later<typeof import("../core/db/pglite_snapshot.ts")>(
    "../core/db/pglite_snapshot.ts",
  ),
};

/** Where a command's output goes; tests pass their own to read it. */
export interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
}

const CONSOLE: Output = {
  out: (text) => console.log(text),
  err: (text) => console.error(text),
};

/**
 * Parses `args` strictly against `name`'s options; answers the values, or an exit code after
 * printing: `--help` prints the usage on stdout (0), a bad or missing option the reason and the
 * usage on stderr (2).
 */
export function parseCommand(
  name: CommandName,
  args: string[],
  io: Output = CONSOLE,
): Record<string, string | undefined> & { json?: boolean } | number {
  const spec: CommandSpec = COMMANDS[name];
  if (args.includes("--help") || args.includes("-h")) {
    io.out(commandUsage(name));
    return 0;
  }
  const options = Object.fromEntries(
    Object.entries(spec.options).map(([k, o]) => [k, { type: o.type }]),
  );
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args, strict: true, options }).values;
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${commandUsage(name)}`);
    return 2;
  }
  const missing = spec.required.filter((k) => !values[k]);
  if (missing.length > 0) {
    io.err(
      `Missing: ${missing.map((m) => `--${m}`).join(", ")}\n\n${
        commandUsage(name)
      }`,
    );
    return 2;
  }
  return values as Record<string, string | undefined> & { json?: boolean };
}

const split = (text: string) =>
  text.split(",").map((s) => s.trim()).filter(Boolean);
const unknownScopes = (scopes: string[]) =>
  scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));

async function bootstrap(args: string[]): Promise<number> {
  const values = parseCommand("bootstrap", args);
  if (typeof values === "number") return values;
  if (Boolean(values["credential-name"]) !== Boolean(values.scopes)) {
    console.error(
      `Missing: --credential-name and --scopes go together\n\n${
        commandUsage("bootstrap")
      }`,
    );
    return 2;
  }
  const store = await openCommandStore();
  if (typeof store === "number") return store;
  const { services, close } = store;
  const { createInstallation } = await lazy.installation();
  try {
    const result = await createInstallation(services, {
      domain: values.domain!.toLowerCase(),
      name: values.name,
      locales: split(values.locales!),
      adminEmail: values["admin-email"]!,
      credential: values["credential-name"]
        ? { name: values["credential-name"], scopes: split(values.scopes!) }
        : undefined,
    }, unknownScopes);
    if (!result.ok) {
      console.error(
        `Bootstrap refused (${result.code}): ${result.message}. Nothing was changed.`,
      );
      return 1;
    }
    const { ok: _ok, ...output } = result;
    console.log(JSON.stringify(output, null, 2));
    // Humans read stderr; stdout stays one JSON document for scripts.
    console.error(reachNote(services.config, result.site.domain));
    return 0;
  } finally {
    await close();
  }
}

async function credential(args: string[]): Promise<number> {
  const values = parseCommand("credential", args);
  if (typeof values === "number") return values;
  const input = {
    domain: values.domain!,
    admin_email: values["admin-email"]!,
    name: values.name!,
    scopes: split(values.scopes!),
    models: values.models ? split(values.models) : null,
  };
  // A running service holds the embedded store: ask it, proving access to the data folder.
  const store = await openCommandStore(
    (config) => credentialThroughService(config, input),
  );
  if (typeof store === "number") return store;
  const { services, close } = store;
  const { makeLocalCredential } = await lazy.localControl();
  try {
    return printCredential(await makeLocalCredential(services, input));
  } finally {
    await close();
  }
}

function printCredential(
  result: { ok: true; output: unknown } | { ok: false; message: string },
): number {
  if (!result.ok) {
    console.error(result.message);
    return 1;
  }
  console.log(JSON.stringify(result.output, null, 2));
  return 0;
}

/**
 * Creates the credential through the running service that holds the data folder, or answers
 * null when no service there accepts local commands (then the lock's message is printed).
 */
async function credentialThroughService(
  config: Config,
  input: LocalCredentialRequest,
): Promise<number | null> {
  const { readLocalControl, LOCAL_CREDENTIAL_PATH } = await lazy
    .localControl();
  const control = await readLocalControl(config.dataDir);
  if (!control) return null;
  let response: Response;
  try {
    response = await fetch(`${control.origin}${LOCAL_CREDENTIAL_PATH}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${control.secret}`,
        "content-type": "application/json",
      },
      body: JSON.stringify(input),
    });
  } catch (error) {
    console.error(
      `The running service did not answer at ${control.origin} (${
        oneLine(error)
      }). Nothing was changed.`,
    );
    return 1;
  }
  const body = await response.json().catch(() => null);
  if (response.status === 201) {
    return printCredential({ ok: true, output: body });
  }
  return printCredential({
    ok: false,
    message: typeof body?.error?.message === "string"
      ? body.error.message
      : `The running service refused (HTTP ${response.status}). Nothing was changed.`,
  });
}

async function migrate(args: string[]): Promise<number> {
  const values = parseCommand("migrate", args);
  if (typeof values === "number") return values;
  const store = await openCommandStore();
  if (typeof store === "number") return store;
  await store.close();
  console.error("Migrations applied");
  return 0;
}

/** Settings, or one line on stderr and null. */
function commandConfig(): Config | null {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return null;
  }
}

async function backup(args: string[]): Promise<number> {
  const values = parseCommand("backup", args);
  if (typeof values === "number") return values;
  const config = commandConfig();
  if (!config) return 1;
  const { backupEmbedded, BackupRefused } = await lazy.backup();
  if (config.databaseUrl) {
    console.error(
      "svc backup copies the embedded store; with DATABASE_URL use pg_dump and back up the media (docs/deploy.md)",
    );
    return 1;
  }
  const { isEmptyDataFolder } = await lazy.snapshot();
  if (await isEmptyDataFolder(`${config.dataDir}/pglite`)) {
    console.error(
      `DATA_DIR "${config.dataDir}" holds no database to back up; nothing was written`,
    );
    return 1;
  }
  // Takes the data folder's lock: with the service running on it, this refuses and says so.
  const store = await openCommandStore();
  if (typeof store === "number") return store;
  try {
    const made = await backupEmbedded(store.services, values.out!);
    console.error(
      `Backed up the database, ${made.counts.kvEntries} KV entries, ${made.counts.media} media files and ${made.counts.attachments} form attachments to ${values.out}`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof BackupRefused)) throw error;
    console.error(error.message);
    return 1;
  } finally {
    await store.close();
  }
}

async function moveToPostgresCommand(args: string[]): Promise<number> {
  const values = parseCommand("move-to-postgres", args);
  if (typeof values === "number") return values;
  const config = commandConfig();
  if (!config) return 1;
  if (config.databaseUrl) {
    console.error(
      "svc move-to-postgres reads the embedded store: unset DATABASE_URL and give the target with --to",
    );
    return 1;
  }
  if (!/^postgres(ql)?:\/\//.test(values.to ?? "")) {
    console.error(
      `Invalid --to: expected a PostgreSQL URL such as "postgres://stave@db:5432/stave"\n\n${
        commandUsage("move-to-postgres")
      }`,
    );
    return 2;
  }
  const { BackupRefused } = await lazy.backup();
  const { moveToPostgres } = await lazy.move();
  const store = await openCommandStore();
  if (typeof store === "number") return store;
  try {
    const moved = await moveToPostgres(store.services.db, values.to!);
    console.error(
      `Copied ${moved.rows} rows of ${moved.tables} tables into PostgreSQL; copy the media (docs/deploy.md), then start with DATABASE_URL set to it`,
    );
    return 0;
  } catch (error) {
    if (error instanceof BackupRefused) {
      console.error(error.message);
      return 1;
    }
    console.error(
      `Cannot copy into PostgreSQL: ${
        oneLine(error).replace(/\/\/[^/@\s]*@/g, "//")
      }; nothing was copied`,
    );
    return 1;
  } finally {
    await store.close();
  }
}

async function restore(args: string[]): Promise<number> {
  const values = parseCommand("restore", args);
  if (typeof values === "number") return values;
  const config = commandConfig();
  if (!config) return 1;
  const { restoreEmbedded, BackupRefused } = await lazy.backup();
  try {
    const made = await restoreEmbedded(config, values.from!);
    console.error(
      `Restored the database, ${made.counts.kvEntries} KV entries, ${made.counts.media} media files and ${made.counts.attachments} form attachments into ${config.dataDir}`,
    );
    return 0;
  } catch (error) {
    if (
      error instanceof BackupRefused || error instanceof DataFolderInUseError
    ) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
}

/**
 * Opens the stores for a command that needs them, or prints one line and answers exit code 1.
 * Every command opens the store here and only here: the exclusive lock on an embedded DATA_DIR
 * (issue 10, point 1) is taken by `openServices`, so a running service's folder is refused in
 * this one place with the lock's own message.
 */
async function openCommandStore(
  whenLocked?: (config: Config) => Promise<number | null>,
): Promise<
  Awaited<ReturnType<typeof openServices>> | number
> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return 1;
  }
  try {
    const { openServices } = await lazy.boot();
    return await openServices(config, { buildIslands: false });
  } catch (error) {
    // A running service holds DATA_DIR, or the database cannot be reached: the start-up
    // message names the setting and the cause, never a secret.
    if (error instanceof DataFolderInUseError && whenLocked) {
      const done = await whenLocked(config);
      if (done !== null) return done;
    }
    if (
      error instanceof StartupError || error instanceof DataFolderInUseError
    ) {
      console.error(startupMessage(error));
      return 1;
    }
    console.error(
      `Cannot open the store (${
        config.databaseUrl ? "DATABASE_URL" : `DATA_DIR ${config.dataDir}`
      }): ${oneLine(error)}`,
    );
    return 1;
  }
}

function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0].slice(0, 300);
}

/** How to reach a new site from this machine (stderr, for the person at the terminal). */
function reachNote(config: Config, domain: string): string {
  const port = config.port === 0 ? 8000 : config.port;
  return [
    `The site answers requests whose Host is ${domain}. From this machine:`,
    `  curl -H 'Host: ${domain}' http://localhost:${port}/health`,
    domain === "127.0.0.1" || domain === "localhost"
      ? `  or open http://${domain}:${port}/admin in a browser`
      : `  (bootstrap a site with --domain 127.0.0.1 to open it in a browser here)`,
  ].join("\n");
}

async function generateBackendCommand(args: string[]): Promise<number> {
  const values = parseCommand("generate-backend", args);
  if (typeof values === "number") return values;
  const out = values.out!;
  const existing = await Array.fromAsync(Deno.readDir(out)).catch(() => []);
  if (existing.length > 0) {
    console.error(`Cannot write to "${out}": the folder is not empty`);
    return 2;
  }
  const store = await openCommandStore();
  if (typeof store === "number") return store;
  const { services, close } = store;
  try {
    const { findSiteByDomain } = await lazy.sites();
    const site = await findSiteByDomain(
      services.db,
      values.domain!.toLowerCase(),
    );
    if (!site) {
      console.error("Generation refused: no such site. Nothing was written.");
      return 1;
    }
    const { generateBackend, writeProject, parseDisabled } = await lazy
      .backend();
    const disabled = parseDisabled(split(values.disable ?? ""));
    if (typeof disabled === "string") {
      console.error(`${disabled}\n\n${commandUsage("generate-backend")}`);
      return 2;
    }
    const result = await generateBackend(services.db, {
      disabled,
      siteId: site.id,
      models: values.models ? split(values.models) : undefined,
      publicUrl: services.config.publicUrl,
      commit: values.commit ?? null,
    });
    if (!result.ok) {
      console.error(
        `Generation refused (${result.code}). Nothing was written.`,
      );
      for (const p of result.problems) {
        console.error(
          `  ${p.code}: ${p.model}${
            p.field ? `.${p.field}` : ""
          }: ${p.message}`,
        );
      }
      return 1;
    }
    await writeProject(out, result.files);
    console.error(
      `Wrote ${result.files.size} files to ${out}. Start it: cd ${out} && deno task start`,
    );
    return 0;
  } finally {
    await close();
  }
}

const HANDLERS: Record<CommandName, (args: string[]) => Promise<number>> = {
  backup,
  restore,
  "move-to-postgres": moveToPostgresCommand,
  bootstrap,
  credential,
  "generate-backend": generateBackendCommand,
  migrate,
};

/** Runs one command and answers the process exit code. */
export async function runSvc(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  if (command === "--help" || command === "-h" || command === "help") {
    console.log(overview());
    return 0;
  }
  if (command && Object.hasOwn(HANDLERS, command)) {
    return await HANDLERS[command as CommandName](rest);
  }
  console.error(
    `${
      command === undefined ? "Missing command" : `Unknown command "${command}"`
    }\n\n${overview()}`,
  );
  return 2;
}

if (import.meta.main) Deno.exit(await runSvc(Deno.args));
