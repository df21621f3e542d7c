// The generated files of the Management API contract, formatted as `deno fmt` would write them.
import type { AnyOperation } from "./contract/mod.ts";
import { OPERATIONS } from "./contract/mod.ts";
import { buildClientTypes } from "./client_types.ts";
import { toolListDocument } from "./mcp/tools.ts";
import { buildCli } from "./cli/build.ts";
import { buildOpenApi, jsonSchemaOf } from "./openapi.ts";
import {
  buildPublicOpenApi,
  PUBLIC_OPENAPI_PATH,
} from "../public/openapi_public.ts";
import { type SchemaNames, schemaNamesOf } from "../openapi/components.ts";

/** One generated file: its path from the project root and its text. */
export interface GeneratedFile {
  path: string;
  text: string;
}

/** Path of the OpenAPI document, from the project root. */
export const OPENAPI_PATH = "generated/openapi-v1.json";
/** Path of the client types, from the project root. */
export const CLIENT_TYPES_PATH = "generated/manage_client_types.ts";

/** Path of the MCP tool list, from the project root. */
export const MCP_TOOLS_PATH = "generated/mcp-tools-v1.json";

/** Path of the command-line client, from the project root. */
export const CLI_PATH = "generated/svc-manage.mjs";

/** Builds every generated file of the contracts, the public read API's document included (`deno task gen:manage` writes them). */
export async function generateManageFiles(
  operations: readonly AnyOperation[] = OPERATIONS,
): Promise<GeneratedFile[]> {
  const schemaNames = await contractSchemaNames();
  return [
    {
      path: OPENAPI_PATH,
      text: await format(
        JSON.stringify(buildOpenApi(operations, { schemaNames }), null, 2),
        "json",
      ),
    },
    {
      path: CLIENT_TYPES_PATH,
      text: await format(buildClientTypes(operations), "ts"),
    },
    {
      path: MCP_TOOLS_PATH,
      text: await format(
        JSON.stringify(toolListDocument(operations), null, 2),
        "json",
      ),
    },
    { path: CLI_PATH, text: await format(await buildCli(operations), "js") },
    {
      path: PUBLIC_OPENAPI_PATH,
      text: await format(
        JSON.stringify(buildPublicOpenApi(), null, 2),
        "json",
      ),
    },
  ];
}

/**
 * Names of the shapes the contract modules export (`entryRead` -> `EntryRead`), so OpenAPI
 * components and the types generated from them carry the contract's own names. Every module of
 * the folder counts, so a new contract file needs no registration here.
 */
export async function contractSchemaNames(): Promise<SchemaNames> {
  const folder = new URL("./contract/", import.meta.url);
  const files: string[] = [];
  for await (const entry of Deno.readDir(folder)) {
    if (entry.isFile && entry.name.endsWith(".ts")) files.push(entry.name);
  }
  const modules = await Promise.all(
    files.sort().map((file) =>
      import(new URL(file, folder).href) as Promise<Record<string, unknown>>
    ),
  );
  return schemaNamesOf(modules, jsonSchemaOf);
}

/** Formats `text` with this Deno's own formatter, so the committed files pass `deno fmt --check`. */
export async function format(
  text: string,
  ext: "json" | "ts" | "js",
): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", `--ext=${ext}`, "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  if (code !== 0) {
    throw new Error(
      `Cannot format generated ${ext}: ${new TextDecoder().decode(stderr)}`,
    );
  }
  return new TextDecoder().decode(stdout);
}
