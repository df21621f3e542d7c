// The released built-in template: the built-in template of services/renderer/template/builtin/
// packed as an ordinary candidate `{ manifest, source }` and built by the same checks as an upload
// (install from the lockfile, type check, build, the page-contract fixtures in the sandbox,
// accessibility and widths). Its three files are written beside a record of their digests; "Use
// built-in template" copies them into a site byte for byte (core/templates/builtin.ts).
import {
  BUILTIN_SITE,
  candidateDigest,
  CURRENT_PAGE_CONTRACT,
} from "../../core/templates/candidates.ts";
import { artifactText } from "../../core/templates/artifacts.ts";
import {
  LOCKFILE_PATH,
  PAGE_CONTRACT_MODULE,
} from "../../core/templates/manifest.ts";
import type { BuiltInRecord } from "../../core/templates/builtin.ts";
import { builtInTemplate } from "../renderer/template/builtin/mod.tsx";
import { buildCandidate, type BuildReport, offlineStore } from "./pipeline.ts";

const RENDERER = new URL("../renderer/", import.meta.url).pathname;
/** Where the released built-in's files are written. */
export const RELEASED_DIR =
  new URL("../renderer/template/released/", import.meta.url).pathname;

// In-process only: mod.tsx reads the stylesheet and script from disk; the release names them.
const LEFT_OUT = new Set(["mod.tsx", "style.css", "search.js"]);

/** The built-in packed as an upload; the same files give the same digest. */
export async function packBuiltIn(): Promise<{
  manifest: {
    name: string;
    entry: string;
    regions?: { key: string; label: string }[];
  };
  source: Record<string, string>;
}> {
  const source: Record<string, string> = {};
  // The page contract is imported by its module name, as every template imports it.
  const contract = (text: string) =>
    text.replace(
      /"(?:\.\.\/)+core\/pages\/mod\.ts"/g,
      `"${PAGE_CONTRACT_MODULE}"`,
    );
  async function walk(dir: string, prefix: string) {
    const entries = [];
    for await (const e of Deno.readDir(dir)) entries.push(e);
    for (const e of entries.sort((a, b) => a.name < b.name ? -1 : 1)) {
      if (e.isDirectory) await walk(`${dir}/${e.name}`, `${prefix}${e.name}/`);
      else if (
        !LEFT_OUT.has(`${prefix}${e.name}`) && !e.name.includes("_test.")
      ) {
        source[`renderer/template/builtin/${prefix}${e.name}`] = contract(
          await Deno.readTextFile(`${dir}/${e.name}`),
        );
      }
    }
  }
  await walk(`${RENDERER}template/builtin`, "");
  for (const file of ["template/mod.ts"]) {
    source[`renderer/${file}`] = contract(
      await Deno.readTextFile(`${RENDERER}${file}`),
    );
  }
  const assets: Record<string, string> = {};
  for (const a of builtInTemplate.assets) {
    source[`assets/${a.name}`] = a.body;
    assets[a.name.split(".")[0] === "style" ? "css" : "search"] =
      `/_site/${a.name}`;
  }
  source["template.tsx"] = [
    "// The released built-in template: its drawings with the stylesheet and script it ships.",
    'import { drawBuiltIn } from "./renderer/template/builtin/draw.tsx";',
    "",
    `export default drawBuiltIn(${JSON.stringify(assets)});`,
    "",
  ].join("\n");
  const store = await offlineStore();
  source[LOCKFILE_PATH] = JSON.stringify(
    {
      packages: Object.fromEntries(
        ["preact", "preact-render-to-string"].map((
          n,
        ) => [n, store.get(n)!.version]),
      ),
    },
    null,
    2,
  ) + "\n";
  const manifest = {
    name: "Built-in",
    entry: "template.tsx",
    ...(builtInTemplate.regions.length > 0
      ? { regions: [...builtInTemplate.regions] }
      : {}),
  };
  return { manifest, source };
}

/** Builds the packed built-in and writes its three files and their record to `dir`. */
export async function releaseBuiltIn(dir = RELEASED_DIR): Promise<
  { ok: true; record: BuiltInRecord } | { ok: false; report: BuildReport }
> {
  const { manifest, source } = await packBuiltIn();
  const digest = candidateDigest(manifest, source);
  const workRoot = await Deno.makeTempDir({ prefix: "stave-builtin-" });
  try {
    const built = await buildCandidate({
      site_id: BUILTIN_SITE,
      candidate_digest: digest,
      contract: CURRENT_PAGE_CONTRACT,
      sandbox_image: `deno@${Deno.version.deno}`,
      manifest,
      source,
    }, { workRoot, buildId: `builtin-${digest.slice(0, 16)}` });
    if (!built.report.passed || !built.compiled) {
      return { ok: false, report: built.report };
    }
    const files = {
      "source.json": artifactText({ manifest, source }),
      "compiled.json": artifactText(built.compiled),
      "report.json": artifactText(built.report),
    };
    const record: BuiltInRecord = {
      name: manifest.name,
      digest,
      contract: CURRENT_PAGE_CONTRACT,
      build_id: built.report.build_id,
      sandbox_image: built.report.sandbox_image,
      source_digest: files["source.json"].digest,
      compiled_digest: files["compiled.json"].digest,
      report_digest: files["report.json"].digest,
    };
    await Deno.mkdir(dir, { recursive: true });
    for (const [name, file] of Object.entries(files)) {
      await Deno.writeTextFile(`${dir}/${name}`, file.text);
    }
    await Deno.writeTextFile(
      `${dir}/release.json`,
      JSON.stringify(record, null, 2) + "\n",
    );
    return { ok: true, record };
  } finally {
    await Deno.remove(workRoot, { recursive: true }).catch(() => {});
  }
}
