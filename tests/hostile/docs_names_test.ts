// Docs name only what exists (issue 10 point 15): every route path and every environment setting
// written in backticks in README.md and docs/ is one the code serves or reads.
import { deepEqual } from "node:assert/strict";
import { OPERATIONS } from "../../core/manage/contract/mod.ts";
import { OAUTH_PATHS } from "../../core/oauth/endpoints.ts";
import { manifest } from "../../routes.gen.ts";
import { RENDERER_PATHS } from "../../services/renderer/paths.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

/** Paths the example plugin (a separate server, plugins/example) answers, read from its router. */
async function examplePluginPaths(): Promise<string[]> {
  const source = await Deno.readTextFile(`${ROOT}plugins/example/plugin.ts`);
  const paths = [...source.matchAll(/path === "(\/[^"]*)"/g)].map((m) => m[1]);
  // Its launch page answers below the management URL of its manifest.
  return [...paths, "/installations/{id}"];
}

/** Paths the scheduling plugin (its own server, plugins/scheduling) answers, read from its router. */
async function schedulingPluginPaths(): Promise<string[]> {
  const source = await Deno.readTextFile(`${ROOT}plugins/scheduling/app.tsx`) +
    await Deno.readTextFile(`${ROOT}plugins/scheduling/release_pages.tsx`);
  return [...source.matchAll(/app\.(?:get|post)\("(\/[^"]*)"/g)].map((m) =>
    m[1]
  );
}

const PLUGIN_API = "/api/plugin/v1";

/** Route patterns as regular expressions: `{id}`, `:id`, `<id>` and `…` match one segment. */
async function routeMatchers(): Promise<RegExp[]> {
  return asMatchers(await servedPatterns());
}

async function servedPatterns(): Promise<string[]> {
  // A catch-all answers every path with a 404 of its own, so it proves nothing exists.
  const served = manifest.routes.map((r) => r.pattern).filter((p) =>
    !p.includes("{.+}")
  );
  const pluginApi = served.filter((p) => p.startsWith(`${PLUGIN_API}/`));
  const patterns = [
    ...served,
    // Plugin API routes are often written relative to their base, as the SDK calls them.
    ...pluginApi.map((p) => p.slice(PLUGIN_API.length)),
    PLUGIN_API,
    // Mounted on the app directly (core/server.ts), not files under routes/.
    "/api/manage/mcp",
    ...Object.values(OAUTH_PATHS),
    `${OAUTH_PATHS.resource}/*`,
    ...await examplePluginPaths(),
    ...await schedulingPluginPaths(),
    ...OPERATIONS.map((o) => `/api/manage/v1${o.path}`),
    ...OPERATIONS.map((o) => o.path),
    "/_static/*",
    "/_static",
    "/api/manage/v1",
    "/v1",
  ];
  return patterns;
}

function asMatchers(patterns: readonly string[]): RegExp[] {
  return patterns.map((p) =>
    new RegExp(
      `^${
        p.split("/").map((seg) =>
          seg === "*"
            ? ".*"
            : /^[:{]/.test(seg)
            ? "[^/]+"
            : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
        ).join("/")
      }/?$`,
    )
  );
}

/** Backticked paths of a doc, with placeholders made concrete and queries cut off. */
function pathsIn(text: string): string[] {
  const found: string[] = [];
  for (
    const m of text.matchAll(/`(?:(?:GET|POST|PUT|DELETE) )?(\/[^`\s]*)`/g)
  ) {
    const path = m[1].split("?")[0].replace(/[{<][^}>]*[}>]|\.\.\.|…/g, "x")
      .replace(/\/$/, "");
    if (path === "" || path.includes("*")) continue;
    // Files and system folders are written like paths too, and so are the addresses a
    // front end builds for items (`/<lang>/<model>/<slug>`), which are not our routes.
    if (/\.(ts|tsx|md|json|css|js|sqlite3|txt)$/.test(path)) continue;
    if (/^\/(usr|proc|tmp|var|srv|etc|work|dev)(\/|$)/.test(path)) continue;
    if (/^(\/x)+$/.test(path)) continue;
    found.push(path || "/");
  }
  return found;
}

Deno.test("every route path named in README.md and docs/ exists (routes.gen.ts or the management contract)", async () => {
  const matchers = await routeMatchers();
  // The site renderer is its own server; only its own page names its paths.
  const renderer = asMatchers([...await servedPatterns(), ...RENDERER_PATHS]);
  const unknown: string[] = [];
  const files = ["README.md"];
  for await (const entry of Deno.readDir(`${ROOT}docs`)) {
    if (entry.name.endsWith(".md")) files.push(`docs/${entry.name}`);
  }
  for (const file of files.sort()) {
    const text = await Deno.readTextFile(`${ROOT}${file}`);
    const known = file === "docs/site-rendering.md" ? renderer : matchers;
    for (const path of pathsIn(text)) {
      if (!known.some((m) => m.test(path))) unknown.push(`${file}: ${path}`);
    }
  }
  deepEqual(unknown, []);
});

/** Names of environment settings the code reads: the config schema and any `Deno.env.get`. */
async function settingsRead(): Promise<Set<string>> {
  const known = new Set<string>();
  const config = await Deno.readTextFile(`${ROOT}core/config.ts`);
  const schema = config.slice(config.indexOf("const configSchema"));
  for (const m of schema.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)) known.add(m[1]);
  // The scheduling plugin reads its own settings through one schema.
  const scheduler = await Deno.readTextFile(
    `${ROOT}plugins/scheduling/config.ts`,
  );
  for (const m of scheduler.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)) {
    known.add(m[1]);
  }
  // So does the site renderer (services/renderer).
  const renderer = await Deno.readTextFile(
    `${ROOT}services/renderer/config.ts`,
  );
  for (const m of renderer.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)) {
    known.add(m[1]);
  }
  for (
    const folder of [
      "core",
      "cli",
      "bench",
      "scripts",
      "tests",
      "plugins",
      // The JavaScript client's `stave-client types` reads its token from the environment.
      "clients/js/src",
      "main.ts",
    ]
  ) {
    const command = new Deno.Command("grep", {
      args: [
        "-rhoE",
        'env(\\.get)?\\(?\\.?"?[A-Z][A-Z0-9_]+',
        `${ROOT}${folder}`,
      ],
    });
    const out = new TextDecoder().decode((await command.output()).stdout);
    for (const m of out.matchAll(/([A-Z][A-Z0-9_]+)$/gm)) known.add(m[1]);
    // A setting read through a named constant (`ANSWER_CHECK_ENV = "STAVE_CHECK_ANSWERS"`).
    const constants = new Deno.Command("grep", {
      args: ["-rhoE", '_ENV = "[A-Z][A-Z0-9_]+"', `${ROOT}${folder}`],
    });
    const named = new TextDecoder().decode((await constants.output()).stdout);
    for (const m of named.matchAll(/"([A-Z][A-Z0-9_]+)"$/gm)) known.add(m[1]);
  }
  return known;
}

Deno.test("every environment setting a doc sets (`NAME=value`, README settings table) is one the code reads", async () => {
  const known = await settingsRead();
  // Read by Deno or a platform, not by our code.
  for (
    const name of [
      "NO_COLOR",
      "DENO_KV_ACCESS_TOKEN",
      "DENO_DEPLOYMENT_ID",
      "DENO_JOBS",
      // V8 settings for the process Deno starts (docs/benchmarks.md, memory).
      "DENO_V8_FLAGS",
      // Deno's built-in OpenTelemetry exporter (docs/deploy.md, issue 47 item 3).
      "OTEL_DENO",
      "OTEL_DENO_CONSOLE",
      "OTEL_EXPORTER_OTLP_ENDPOINT",
      "OTEL_EXPORTER_OTLP_PROTOCOL",
      "OTEL_SERVICE_NAME",
    ]
  ) {
    known.add(name);
  }
  const unknown: string[] = [];
  const files = ["README.md"];
  for await (const entry of Deno.readDir(`${ROOT}docs`)) {
    if (entry.name.endsWith(".md")) files.push(`docs/${entry.name}`);
  }
  for (const file of files.sort()) {
    const text = await Deno.readTextFile(`${ROOT}${file}`);
    const named = [
      ...text.matchAll(/(?<![A-Za-z0-9_])([A-Z][A-Z0-9]*_[A-Z0-9_]+)=/g),
      ...text.matchAll(/^\| `([A-Z][A-Z0-9_]+)`/gm),
    ];
    for (const m of named) {
      if (!known.has(m[1])) unknown.push(`${file}: ${m[1]}`);
    }
  }
  deepEqual(unknown, []);
});
