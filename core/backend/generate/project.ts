// Assembles the emitted project: the runtime copied from template/ (ordinary TypeScript a
// developer reads and customises), and the files made for this site: its description, schema
// migration, seed, access configuration, OpenAPI description, deno.json and README.
import denoConfig from "../../../deno.json" with { type: "json" };
import { openapiOf } from "./openapi.ts";
import { schemaSql } from "./sql.ts";
import type { BackendSchema } from "./template/src/schema.ts";
import type { Seed } from "./template/src/migrate.ts";
import type { AccessConfig } from "./template/src/access.ts";
import {
  FIXED_SECURITY,
  type SecuritySettings,
} from "./template/src/security.ts";

const TEMPLATE = new URL("./template/", import.meta.url);

/** Files of the emitted project, by path relative to its folder. */
export type ProjectFiles = Map<string, string>;

async function copyTemplate(
  files: ProjectFiles,
  dir: URL,
  prefix: string,
): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${prefix}${entry.name}`;
    if (entry.isDirectory) {
      await copyTemplate(files, new URL(`${entry.name}/`, dir), `${path}/`);
    } else if (!entry.name.endsWith(".md")) {
      files.set(path, await Deno.readTextFile(new URL(entry.name, dir)));
    }
  }
}

/** The emitted deno.json: the same pinned versions as this service. */
function denoJson(): string {
  const imports = denoConfig.imports as Record<string, string>;
  const pick = [
    "hono",
    "hono/",
    "kysely",
    "pg",
    "pg-protocol",
    "@electric-sql/pglite",
  ];
  return JSON.stringify(
    {
      tasks: {
        start:
          "deno run --allow-net --allow-env --allow-read --allow-write main.ts",
        migrate:
          "deno run --allow-net --allow-env --allow-read --allow-write main.ts migrate",
        test:
          "deno test --allow-net --allow-env --allow-read --allow-write tests/",
      },
      imports: Object.fromEntries(pick.map((name) => [name, imports[name]])),
      lint: { exclude: ["data/"] },
      fmt: { exclude: ["data/"] },
    },
    null,
    2,
  ) + "\n";
}

/** The README, from template/README.md with this site's names filled in. */
async function readme(
  schema: BackendSchema,
  siteName: string,
): Promise<string> {
  const text = await Deno.readTextFile(new URL("README.md", TEMPLATE));
  const first = schema.models[0]?.name ?? "posts";
  const routes = schema.models.map((m) =>
    `- \`/api/${m.name}\` (${m.label}): ${
      (["findMany", "findUnique", "create"] as const).map((op) =>
        `${op} ${m.access[op].audience}`
      ).join(", ")
    }`
  ).join("\n");
  return text.replaceAll("{{site}}", siteName)
    .replaceAll("{{first}}", first)
    .replaceAll("{{routes}}", routes);
}

/** Everything written into the project folder. */
export async function projectFiles(
  schema: BackendSchema,
  seed: Seed,
  access: AccessConfig,
  siteName: string,
): Promise<ProjectFiles> {
  const files: ProjectFiles = new Map();
  await copyTemplate(files, TEMPLATE, "");
  files.set("deno.json", denoJson());
  files.set("README.md", await readme(schema, siteName));
  files.set("generated/schema.json", JSON.stringify(schema, null, 2) + "\n");
  files.set(
    "migrations/0001_schema.sql",
    schemaSql(schema.models, schema.site.locales),
  );
  files.set("seed/content.json", JSON.stringify(seed, null, 1) + "\n");
  files.set("access/read-tokens.json", JSON.stringify(access, null, 2) + "\n");
  files.set("openapi.json", JSON.stringify(openapiOf(schema), null, 2) + "\n");
  const security: SecuritySettings = {
    ...FIXED_SECURITY,
    requireDefaultVariantOptIn: false,
  };
  files.set(
    "generated/security.json",
    JSON.stringify(security, null, 2) + "\n",
  );
  files.set(".gitignore", "data/\n");
  return files;
}

/** Writes `files` below `dir`, creating folders. */
export async function writeProject(
  dir: string,
  files: ProjectFiles,
): Promise<void> {
  for (const [path, text] of files) {
    const target = `${dir}/${path}`;
    await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), {
      recursive: true,
    });
    await Deno.writeTextFile(target, text);
  }
}
