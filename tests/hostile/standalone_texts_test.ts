// What users read stands on its own: README, docs, the command line's help and the MCP tool texts name no spec parts, capability ids or ../shared paths.
import { deepEqual } from "node:assert/strict";
import { OPERATIONS } from "../../core/manage/contract/mod.ts";
import { INSTRUCTIONS } from "../../core/manage/mcp/endpoint.ts";
import { buildTools, listedTool } from "../../core/manage/mcp/tools.ts";
import { CLI_PATH } from "../../core/manage/generate.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

/** Area prefixes of the capability ids tests name (`MAPI-022`); users never see them. */
const ID_AREAS =
  "AUD|AUTH|CLI|DLV|ENT|FORM|GACC|GEN|GREL|IMP|LAU|MAPI|MCP|MCR|MED|MOD|MPL|OUT|PAGE|PAPI|PAUX|PEXT|PLG|PUB|REL|SCH|SET|SOP|SRCH|SUI|SYNC|TPL";

/** References to material a user of Stave does not have. */
const FORBIDDEN: [string, RegExp][] = [
  ["a ../shared path", /\.\.\/shared\b/],
  ["a spec reference", /\bspecs? \d/i],
  ["a spec section", /\bparts? \d+\.\d/i],
  ["a capability id", new RegExp(`\\b(?:${ID_AREAS})-\\d{3}\\b`)],
];

/** Every line of `text` that carries a forbidden reference, as `where:line: kind: text`. */
export function references(where: string, text: string): string[] {
  const found: string[] = [];
  text.split("\n").forEach((line, i) => {
    for (const [kind, pattern] of FORBIDDEN) {
      if (pattern.test(line)) {
        found.push(`${where}:${i + 1}: ${kind}: ${line.trim().slice(0, 160)}`);
      }
    }
  });
  return found;
}

Deno.test("references() finds each kind of reference and passes plain text, so the scans below can fail", () => {
  deepEqual(
    references(
      "x",
      "see ../shared/spec\n(spec 2 part 4.5)\nMAPI-022\nSHA-256 and UTF-8 and 5 MiB parts",
    )
      .map((line) => line.split(": ")[1]),
    [
      "a ../shared path",
      "a spec reference",
      "a spec section",
      "a capability id",
    ],
  );
});

Deno.test("README.md and docs/*.md name no spec parts, capability ids or ../shared paths", async () => {
  const files = ["README.md", "generated/README.md"];
  for await (const entry of Deno.readDir(`${ROOT}docs`)) {
    if (entry.isFile && entry.name.endsWith(".md")) {
      files.push(`docs/${entry.name}`);
    }
  }
  const found: string[] = [];
  for (const file of files.sort()) {
    found.push(...references(file, await Deno.readTextFile(`${ROOT}${file}`)));
  }
  deepEqual(found, []);
});

Deno.test("svc-manage.mjs help texts and the MCP tool list and instructions name no spec parts, capability ids or ../shared paths", async () => {
  // The CLI's help is built from the command table and strings inside the generated file.
  const cli = await Deno.readTextFile(`${ROOT}${CLI_PATH}`);
  const tools = JSON.stringify(buildTools(OPERATIONS).map(listedTool), null, 1);
  deepEqual(
    [
      ...references(CLI_PATH, cli),
      ...references("tools/list", tools),
      ...references("initialize instructions", INSTRUCTIONS),
    ],
    [],
  );
});

Deno.test("both OpenAPI documents name no spec parts, capability ids or ../shared paths", async () => {
  const found: string[] = [];
  for (
    const file of [
      "generated/openapi-v1.json",
      "generated/openapi-public-v1.json",
    ]
  ) found.push(...references(file, await Deno.readTextFile(`${ROOT}${file}`)));
  deepEqual(found, []);
});
