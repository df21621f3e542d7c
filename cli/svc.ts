// deno task svc <command>: operator commands for scripts and CI (bootstrap, credential, migrate).
import { parseArgs } from "node:util";
import { SCOPES } from "../core/access/scopes.ts";
import { openServices } from "../core/boot.ts";
import { type Config, ConfigError, loadConfig } from "../core/config.ts";
import { DataFolderInUseError } from "../core/db/data_lock.ts";
import { StartupError, startupMessage } from "../core/startup_error.ts";
import { createCredential } from "../core/credentials/credentials.ts";
import { createInstallation } from "../core/sites/installation.ts";
import { findSiteByDomain } from "../core/sites/site_store.ts";

const USAGE = `Usage:
  deno task svc bootstrap --json --domain <host> --locales en,de --admin-email <email>
                          [--credential-name <name> --scopes <scope,scope,...>] [--name <site name>]
  deno task svc credential --json --domain <host> --admin-email <email> --name <name>
                           --scopes <scope,scope,...> [--models <model id,...>]
  deno task svc migrate`;

type Options = Record<string, { type: "string" | "boolean" }>;

/** Parses `args` strictly; answers null (after printing why) when they do not fit. */
function parse(args: string[], options: Options, required: string[]) {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args, strict: true, options }).values;
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return null;
  }
  const missing = required.filter((k) => !values[k]);
  if (missing.length > 0) {
    console.error(
      `Missing: ${missing.map((m) => `--${m}`).join(", ")}\n${USAGE}`,
    );
    return null;
  }
  return values as Record<string, string | undefined> & { json?: boolean };
}

const split = (text: string) =>
  text.split(",").map((s) => s.trim()).filter(Boolean);
const unknownScopes = (scopes: string[]) =>
  scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));

async function bootstrap(config: Config, args: string[]): Promise<number> {
  const values = parse(args, {
    json: { type: "boolean" },
    domain: { type: "string" },
    name: { type: "string" },
    locales: { type: "string" },
    "admin-email": { type: "string" },
    "credential-name": { type: "string" },
    scopes: { type: "string" },
  }, ["json", "domain", "locales", "admin-email"]);
  if (!values) return 2;
  if (Boolean(values["credential-name"]) !== Boolean(values.scopes)) {
    console.error(
      `Missing: --credential-name and --scopes go together\n${USAGE}`,
    );
    return 2;
  }
  const { services, close } = await openServices(config, {
    buildIslands: false,
  });
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
    return 0;
  } finally {
    await close();
  }
}

async function credential(config: Config, args: string[]): Promise<number> {
  const values = parse(args, {
    json: { type: "boolean" },
    domain: { type: "string" },
    "admin-email": { type: "string" },
    name: { type: "string" },
    scopes: { type: "string" },
    models: { type: "string" },
  }, ["json", "domain", "admin-email", "name", "scopes"]);
  if (!values) return 2;
  const { services, close } = await openServices(config, {
    buildIslands: false,
  });
  try {
    const site = await findSiteByDomain(
      services.db,
      values.domain!.toLowerCase(),
    );
    const person = await services.db.selectFrom("users").select("id")
      .where("email", "=", values["admin-email"]!.trim().toLowerCase())
      .executeTakeFirst();
    if (!site || !person) {
      console.error(
        "Credential refused: no such site or person. Nothing was changed.",
      );
      return 1;
    }
    const created = await createCredential({
      ...services,
      siteId: site.id,
      personId: person.id,
    }, {
      name: values.name!,
      scopes: split(values.scopes!),
      models: values.models ? split(values.models) : null,
    });
    if (!created.ok) {
      console.error(
        `Credential refused (${created.code}): ${
          JSON.stringify(created)
        }. Nothing was changed.`,
      );
      return 1;
    }
    const { id, name, scopes, models } = created.credential;
    console.log(
      JSON.stringify(
        {
          management_credential: {
            id,
            name,
            scopes,
            models,
            secret: created.secret,
          },
        },
        null,
        2,
      ),
    );
    return 0;
  } finally {
    await close();
  }
}

/** Runs one command and answers the process exit code. */
export async function runSvc(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
  try {
    return await runCommand(command, config, rest);
  } catch (error) {
    // The stores could not be opened (a running service holds DATA_DIR, an unreachable
    // database): one line, nothing changed.
    if (
      error instanceof StartupError || error instanceof DataFolderInUseError
    ) {
      console.error(startupMessage(error));
      return 1;
    }
    throw error;
  }
}

async function runCommand(
  command: string | undefined,
  config: Config,
  rest: string[],
): Promise<number> {
  switch (command) {
    case "bootstrap":
      return await bootstrap(config, rest);
    case "credential":
      return await credential(config, rest);
    case "migrate": {
      const { close } = await openServices(config, { buildIslands: false });
      await close();
      console.error("Migrations applied");
      return 0;
    }
    default:
      console.error(USAGE);
      return 2;
  }
}

if (import.meta.main) Deno.exit(await runSvc(Deno.args));
