// Bundles the islands and the boot file with esbuild into content-hashed files under static/build/.
import * as esbuild from "esbuild";

/** Browser addresses of the boot file and of each island's chunk. */
export interface IslandAssets {
  boot: string;
  chunks: Record<string, string>;
}

/** Options of {@link buildIslands}. */
export interface BuildIslandsOptions {
  /** Absolute project root. */
  root: string;
  islands: { name: string; file: string }[];
  /** Output folder relative to the root; served under `/_static/`. */
  outDir?: string;
}

/** Builds the bundles; pages without islands never reference them. */
export async function buildIslands(
  options: BuildIslandsOptions,
): Promise<IslandAssets> {
  return (await bundleIslands(options)).assets;
}

/** What one build made: the assets, every source file it read and every file it wrote (paths relative to the root). */
export interface IslandBundle {
  assets: IslandAssets;
  inputs: string[];
  outputs: string[];
}

/** Builds the bundles and says which sources went in, so a later check can tell they changed. */
export async function bundleIslands(
  options: BuildIslandsOptions,
): Promise<IslandBundle> {
  const outDir = options.outDir ?? "static/build";
  if (options.islands.length === 0) {
    return { assets: { boot: "", chunks: {} }, inputs: [], outputs: [] };
  }
  const entryPoints = [
    { in: `${options.root}/core/web/client/boot.ts`, out: "boot" },
    ...options.islands.map((i) => ({
      in: `${options.root}/${i.file}`,
      out: `island-${i.name}`,
    })),
  ];
  try {
    const result = await esbuild.build({
      absWorkingDir: options.root,
      entryPoints,
      outdir: `${options.root}/${outDir}`,
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "browser",
      target: "es2022",
      minify: true,
      jsx: "automatic",
      jsxImportSource: "preact",
      entryNames: "[name]-[hash]",
      chunkNames: "chunk-[hash]",
      metafile: true,
      write: true,
      logLevel: "silent",
    });
    const served = (path: string) =>
      `/_static/${
        path.slice(path.indexOf(outDir) + outDir.length - "build".length)
      }`;
    const byEntry = new Map<string, string>();
    for (const [path, output] of Object.entries(result.metafile.outputs)) {
      if (output.entryPoint) {
        byEntry.set(
          output.entryPoint.replace(/^.*?(core\/web\/client|islands)\//, "$1/"),
          served(path),
        );
      }
    }
    const chunks: Record<string, string> = {};
    for (const island of options.islands) {
      chunks[island.name] = byEntry.get(island.file)!;
    }
    return {
      assets: { boot: byEntry.get("core/web/client/boot.ts")!, chunks },
      inputs: Object.keys(result.metafile.inputs).sort(),
      outputs: Object.keys(result.metafile.outputs).sort(),
    };
  } finally {
    await esbuild.stop();
  }
}
