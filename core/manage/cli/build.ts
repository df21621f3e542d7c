// Builds `svc-manage.mjs`: the command table generated from the contract, joined to the hand-written runtime.
import {
  type AnyOperation,
  BASE_PATH,
  CONTRACT_VERSION,
  pathParams,
} from "../contract/mod.ts";
import { type Json, jsonSchemaOf } from "../openapi.ts";
import { operationNames } from "../route_names.ts";

/** A help text with each route it names written as the command that calls it. */
function commandText(text: string | undefined): string | undefined {
  return text === undefined ? undefined : operationNames(text, "kebab");
}

/** Where the runtime expects the command table. */
const SLOT = "/* CONTRACT */ null";

/**
 * The hand-written runtime, in the order it is joined into one file: `runtime.mjs` (imports,
 * arguments, origin) first, the entry point last. Each part opens with one comment line for
 * its readers and a lint note, both left out of the joined file.
 */
const RUNTIME_PARTS = [
  "runtime.mjs",
  "session.mjs",
  "commands.mjs",
  "builtins.mjs",
  "help_main.mjs",
];

/** One option of a command as the CLI reads and documents it. */
interface CliOption {
  name: string;
  flag: string;
  in: "path" | "query";
  required: boolean;
  type: string;
  description?: string;
}

/** One command of the table embedded in the file. */
interface CliCommand {
  command: string;
  tool: string;
  method: string;
  path: string;
  summary: string;
  scope: string;
  key: boolean;
  options: CliOption[];
  /** Top-level body fields, for `--help`; null when the command takes no body. */
  body: { name: string; required: boolean; type: string }[] | null;
  /** The command pages with `cursor` and `next_cursor`, so `--all` reads every page. */
  pages: boolean;
  /** The body is raw bytes read from `--file`. */
  binary: boolean;
  /** The answer is one byte-range page, so `--out` reads every page into a checked file. */
  byteRange: boolean;
  /** The command runs one step of a job, so `--follow` repeats it until the job stops. */
  follow: boolean;
  /** The body is `multipart/form-data`: this names the file part `--file` fills. */
  multipart: string | null;
}

function typeOf(schema: Json | undefined): string {
  if (!schema) return "value";
  if (typeof schema.type === "string") {
    return schema.enum
      ? (schema.enum as unknown[]).join("|")
      : schema.type as string;
  }
  if (Array.isArray(schema.type)) return (schema.type as string[]).join("|");
  if (schema.anyOf) {
    return [...new Set((schema.anyOf as Json[]).map((s) => typeOf(s)))]
      .join("|");
  }
  if ("const" in schema) return JSON.stringify(schema.const);
  return "value";
}

/** Flags every command reads itself; an option of the same name gets a longer flag. */
const RESERVED_FLAGS = new Set([
  "key",
  "url",
  "body",
  "all",
  "help",
  "scope",
  "no-open",
  "follow",
  "file",
  "out",
  "content-type",
]);

/**
 * The flag of a path or query parameter: `--model-id`. One that would shadow a global flag
 * is named after its place: `/settings/{key}` gives `--settings-key`, a query `key` `--query-key`.
 */
function flagOf(name: string, path: string, place: "path" | "query"): string {
  const plain = name.replaceAll("_", "-");
  if (!RESERVED_FLAGS.has(plain)) return `--${plain}`;
  if (place === "query") return `--query-${plain}`;
  const before = path.split(`/{${name}}`)[0].split("/").pop() || "path";
  return `--${before}-${plain}`;
}

/** The command table of `operations`. */
export function cliCommands(operations: readonly AnyOperation[]): CliCommand[] {
  return operations.map((operation) => {
    const options: CliOption[] = [];
    const params = jsonSchemaOf(operation.params, "input");
    for (const name of pathParams(operation.path)) {
      const property = (params.properties as Record<string, Json>)?.[name];
      options.push({
        name,
        flag: flagOf(name, operation.path, "path"),
        in: "path",
        required: true,
        type: typeOf(property),
        description: commandText(property?.description as string | undefined),
      });
    }
    const query = jsonSchemaOf(operation.query, "input");
    const required = (query.required as string[] | undefined) ?? [];
    for (
      const [name, property] of Object.entries(
        (query.properties ?? {}) as Record<string, Json>,
      )
    ) {
      options.push({
        name,
        flag: flagOf(name, operation.path, "query"),
        in: "query",
        required: required.includes(name),
        type: typeOf(property),
        description: commandText(property.description as string | undefined),
      });
    }
    let body: CliCommand["body"] = null;
    if (operation.body) {
      const schema = jsonSchemaOf(operation.body, "input");
      const needed = (schema.required as string[] | undefined) ?? [];
      body = Object.entries((schema.properties ?? {}) as Record<string, Json>)
        .map(([name, property]) => ({
          name,
          required: needed.includes(name),
          type: typeOf(property),
        }));
    }
    return {
      command: operation.name,
      tool: operation.name.replaceAll("-", "_"),
      method: operation.method,
      path: operation.path,
      summary: commandText(operation.summary)!,
      scope: operation.scope,
      key: operation.key !== null,
      options,
      body,
      pages: "cursor" in operation.query.shape,
      binary: operation.binary === true,
      byteRange: "next_page" in
        ((jsonSchemaOf(operation.answer, "output").properties ?? {}) as Json),
      follow: operation.method === "POST" &&
        operation.path.endsWith("/advance"),
      multipart: operation.multipart?.file ?? null,
    };
  });
}

/** The text of `svc-manage.mjs` (unformatted; the generator runs `deno fmt`). */
export async function buildCli(
  operations: readonly AnyOperation[],
): Promise<string> {
  const parts = await Promise.all(
    RUNTIME_PARTS.map((file) =>
      Deno.readTextFile(new URL(`./${file}`, import.meta.url))
    ),
  );
  // Each part opens with its reader's line and a lint note that only makes sense apart.
  const runtime = parts.map((text) =>
    text.replace(/^\/\/ [^\n]*\n(\/\/ deno-lint-ignore-file[^\n]*\n)?/, "")
  ).join("\n");
  if (!runtime.includes(SLOT)) {
    throw new Error(
      `Cannot build svc-manage.mjs: core/manage/cli/runtime.mjs lacks "${SLOT}"`,
    );
  }
  const contract = {
    version: CONTRACT_VERSION,
    basePath: BASE_PATH,
    commands: cliCommands(operations),
  };
  const body = runtime.replace(SLOT, JSON.stringify(contract));
  return [
    "#!/usr/bin/env node",
    "// Generated by scripts/gen_manage.ts from core/manage/contract and core/manage/cli/*.mjs. Do not edit.",
    "// svc-manage.mjs: the Stave Management API from a terminal, one command per operation.",
    "// Needs Node.js 18+ or Deno; no dependencies. `svc-manage.mjs --help` lists the commands.",
    body,
  ].join("\n");
}
