// Island bundles made ahead of time (`deno task build`) for hosts that cannot run esbuild at start
// (Deno Deploy): a manifest beside the bundles records what went in, so a check can tell when
// they are stale.
import { bundleIslands, type IslandAssets } from "./islands_build.ts";

/** Where the manifest lives, relative to the project root. */
export const PREBUILT_MANIFEST = "static/build/manifest.json";
const FORMAT = 1;

/** The manifest `deno task build` writes. */
export interface PrebuiltManifest {
  format: number;
  /** Island names as the route table lists them, in its order. */
  islands: string[];
  assets: IslandAssets;
  /** SHA-256 (hex) of every source file the bundles were made from, by path relative to the root. */
  inputs: Record<string, string>;
}

/** Options of the functions here: the project root and the islands the route table names. */
export interface PrebuiltOptions {
  root: string;
  islands: { name: string; file: string }[];
}

/**
 * Builds the bundles, writes the manifest and removes bundles of earlier builds (a start-up build
 * running at the same moment writes the same content-hashed names, so nothing it serves goes).
 */
export async function buildPrebuiltIslands(
  options: PrebuiltOptions,
): Promise<PrebuiltManifest> {
  const bundle = await bundleIslands(options);
  const inputs: Record<string, string> = {};
  for (const path of bundle.inputs) {
    inputs[path] = await fileDigest(`${options.root}/${path}`);
  }
  const manifest: PrebuiltManifest = {
    format: FORMAT,
    islands: options.islands.map((i) => i.name),
    assets: bundle.assets,
    inputs,
  };
  await Deno.writeTextFile(
    `${options.root}/${PREBUILT_MANIFEST}`,
    JSON.stringify(manifest, null, 2) + "\n",
  );
  const keep = new Set(bundle.outputs);
  for await (const entry of Deno.readDir(`${options.root}/static/build`)) {
    const path = `static/build/${entry.name}`;
    if (entry.isFile && path !== PREBUILT_MANIFEST && !keep.has(path)) {
      await Deno.remove(`${options.root}/${path}`);
    }
  }
  return manifest;
}

/** Thrown at start when the prebuilt bundles are missing or do not match the code. */
export class PrebuiltIslandsError extends Error {
  override name = "PrebuiltIslandsError";
}

/**
 * The assets of the prebuilt bundles, read without building or writing anything. Refuses a
 * missing manifest, one made for another set of islands, or one whose files are gone: pages
 * would reference scripts that do not exist.
 */
export async function readPrebuiltIslands(
  options: PrebuiltOptions,
): Promise<IslandAssets> {
  const manifest = await readManifest(options.root);
  if (!manifest) {
    throw new PrebuiltIslandsError(
      `Cannot find "${PREBUILT_MANIFEST}": run "deno task build" before deploying`,
    );
  }
  const problems = await shapeProblems(manifest, options);
  if (problems.length > 0) {
    throw new PrebuiltIslandsError(
      `Cannot use the prebuilt island bundles: ${
        problems[0]
      }; run "deno task build" again before deploying`,
    );
  }
  return manifest.assets;
}

/**
 * Why the prebuilt bundles do not match the code now, one reason a line; empty when they do.
 * Compares the island list, that every bundle exists, and the digest of every source file.
 */
export async function stalePrebuiltIslands(
  options: PrebuiltOptions,
): Promise<string[]> {
  const manifest = await readManifest(options.root);
  if (!manifest) return [`"${PREBUILT_MANIFEST}" is missing`];
  const problems = await shapeProblems(manifest, options);
  for (const [path, digest] of Object.entries(manifest.inputs)) {
    let now: string;
    try {
      now = await fileDigest(`${options.root}/${path}`);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      problems.push(`"${path}" was bundled but no longer exists`);
      continue;
    }
    if (now !== digest) problems.push(`"${path}" changed since the build`);
  }
  return problems;
}

async function shapeProblems(
  manifest: PrebuiltManifest,
  options: PrebuiltOptions,
): Promise<string[]> {
  const problems: string[] = [];
  const want = options.islands.map((i) => i.name);
  const missing = want.filter((name) => !manifest.islands.includes(name));
  const extra = manifest.islands.filter((name) => !want.includes(name));
  if (missing.length > 0) {
    problems.push(`the island "${missing[0]}" is not in the build`);
  }
  if (extra.length > 0) {
    problems.push(
      `the build has the island "${extra[0]}" the code no longer has`,
    );
  }
  const served = [
    manifest.assets.boot,
    ...Object.values(manifest.assets.chunks),
  ].filter((path) => path !== "");
  for (const path of served) {
    const file = `${options.root}/static/${path.replace(/^\/_static\//, "")}`;
    try {
      await Deno.stat(file);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      problems.push(`the bundle "${path}" is missing`);
    }
  }
  return problems;
}

async function readManifest(root: string): Promise<PrebuiltManifest | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${root}/${PREBUILT_MANIFEST}`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<PrebuiltManifest>;
  if (
    parsed.format !== FORMAT || !Array.isArray(parsed.islands) ||
    !parsed.assets || typeof parsed.inputs !== "object"
  ) return null;
  return parsed as PrebuiltManifest;
}

async function fileDigest(path: string): Promise<string> {
  const bytes = await Deno.readFile(path);
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(
    new Uint8Array(digest),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}
