// deno task svc <command>: operator commands for scripts and CI (bootstrap, migrate).
import { parseArgs } from "node:util";
import { openServices } from "../core/boot.ts";
import { ConfigError, loadConfig } from "../core/config.ts";
import { createInstallation } from "../core/sites/installation.ts";
import { SCOPES } from "../core/access/scopes.ts";

const USAGE = `Usage:
  deno task svc bootstrap --json --domain <host> --locales en,de --admin-email <email>
                          [--credential-name <name> --scopes <scope,scope,...>] [--name <site name>]
  deno task svc migrate`;

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
  if (command === "migrate") {
    const { close } = await openServices(config, { buildIslands: false });
    await close();
    console.error("Migrations applied");
    return 0;
  }
  if (command !== "bootstrap") {
    console.error(USAGE);
    return 2;
  }
  let values;
  try {
    values = parseArgs({
      args: rest,
      strict: true,
      options: {
        json: { type: "boolean" },
        domain: { type: "string" },
        name: { type: "string" },
        locales: { type: "string" },
        "admin-email": { type: "string" },
        "credential-name": { type: "string" },
        scopes: { type: "string" },
      },
    }).values;
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const missing = ["domain", "locales", "admin-email"].filter((k) =>
    !values[k as keyof typeof values]
  );
  if (!values.json) missing.push("json");
  if (Boolean(values["credential-name"]) !== Boolean(values.scopes)) {
    missing.push("credential-name and scopes together");
  }
  if (missing.length > 0) {
    console.error(
      `Missing: ${missing.map((m) => `--${m}`).join(", ")}\n${USAGE}`,
    );
    return 2;
  }
  const { services, close } = await openServices(config, {
    buildIslands: false,
  });
  try {
    const split = (text: string) =>
      text.split(",").map((s) => s.trim()).filter(Boolean);
    const result = await createInstallation(
      services,
      {
        domain: values.domain!.toLowerCase(),
        name: values.name,
        locales: split(values.locales!),
        adminEmail: values["admin-email"]!,
        credential: values["credential-name"]
          ? { name: values["credential-name"], scopes: split(values.scopes!) }
          : undefined,
      },
      (scopes) =>
        scopes.filter((s) => !(SCOPES as readonly string[]).includes(s)),
    );
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

if (import.meta.main) Deno.exit(await runSvc(Deno.args));
