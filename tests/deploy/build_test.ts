// `deno task build` and its stale check (issue 47 item 1): the prebuilt island bundles a Deno
// Deploy start reads instead of building, and the check that fails when they no longer match.
import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import {
  buildPrebuiltIslands,
  PREBUILT_MANIFEST,
  readPrebuiltIslands,
  stalePrebuiltIslands,
} from "../../core/web/islands_prebuilt.ts";
import { ON_POSTGRES } from "../support/db.ts";

/** A project of its own: a boot file and two islands with no imports, so esbuild needs nothing else. */
async function tinyProject(): Promise<
  { root: string; islands: { name: string; file: string }[] }
> {
  const root = await Deno.makeTempDir({ prefix: "stave-build-" });
  await Deno.mkdir(`${root}/core/web/client`, { recursive: true });
  await Deno.mkdir(`${root}/islands`);
  await Deno.writeTextFile(
    `${root}/core/web/client/boot.ts`,
    `export const boot = "boot";\n`,
  );
  await Deno.writeTextFile(
    `${root}/islands/shared.ts`,
    `export const shared = (n: number) => n + 1;\n`,
  );
  for (const name of ["One", "Two"]) {
    await Deno.writeTextFile(
      `${root}/islands/${name}.ts`,
      `import { shared } from "./shared.ts";\nexport const ${name.toLowerCase()} = shared(${name.length});\n`,
    );
  }
  return {
    root,
    islands: [
      { name: "One", file: "islands/One.ts" },
      { name: "Two", file: "islands/Two.ts" },
    ],
  };
}

Deno.test({
  name:
    "deno task build writes the bundles and a manifest the stale check accepts; a changed source, a new island or a lost bundle makes it fail naming why (issue 47 item 1)",
  // Touches no database: runs in the embedded run only.
  ignore: ON_POSTGRES,
  async fn() {
    const project = await tinyProject();
    try {
      const built = await buildPrebuiltIslands(project);
      deepEqual(built.islands, ["One", "Two"]);
      deepEqual(Object.keys(built.inputs).sort(), [
        "core/web/client/boot.ts",
        "islands/One.ts",
        "islands/Two.ts",
        "islands/shared.ts",
      ]);
      deepEqual(await stalePrebuiltIslands(project), [], "fresh after a build");
      // A start on Deploy reads the same assets without building.
      deepEqual(await readPrebuiltIslands(project), built.assets);

      // A file every island imports changed: stale, naming it.
      await Deno.writeTextFile(
        `${project.root}/islands/shared.ts`,
        `export const shared = (n: number) => n + 2;\n`,
      );
      deepEqual(await stalePrebuiltIslands(project), [
        `"islands/shared.ts" changed since the build`,
      ]);
      await buildPrebuiltIslands(project);
      deepEqual(await stalePrebuiltIslands(project), []);

      // An island the route table names that the build has not seen.
      await Deno.writeTextFile(
        `${project.root}/islands/Three.ts`,
        `export const three = 3;\n`,
      );
      const three = {
        ...project,
        islands: [...project.islands, {
          name: "Three",
          file: "islands/Three.ts",
        }],
      };
      deepEqual(await stalePrebuiltIslands(three), [
        `the island "Three" is not in the build`,
      ]);
      await rejects(
        () => readPrebuiltIslands(three),
        /Cannot use the prebuilt island bundles: the island "Three" is not in the build; run "deno task build" again before deploying/,
      );

      // A bundle the manifest names is gone (a deploy that left static/build out).
      const manifest = JSON.parse(
        await Deno.readTextFile(`${project.root}/${PREBUILT_MANIFEST}`),
      );
      const one = manifest.assets.chunks.One as string;
      await Deno.remove(
        `${project.root}/static/${one.replace(/^\/_static\//, "")}`,
      );
      const stale = await stalePrebuiltIslands(project);
      equal(stale.length, 1);
      match(
        stale[0],
        /^the bundle "\/_static\/build\/island-One-\w+\.js" is missing$/,
      );

      // Rebuilding removes the files of earlier builds and keeps only its own.
      await buildPrebuiltIslands(project);
      const files = [...Deno.readDirSync(`${project.root}/static/build`)].map((
        e,
      ) => e.name).sort();
      ok(files.includes("manifest.json"));
      equal(files.filter((f) => f.startsWith("island-One-")).length, 1);

      // No manifest at all: a Deploy start refuses, naming the command.
      await Deno.remove(`${project.root}/${PREBUILT_MANIFEST}`);
      deepEqual(await stalePrebuiltIslands(project), [
        `"static/build/manifest.json" is missing`,
      ]);
      await rejects(
        () => readPrebuiltIslands(project),
        /Cannot find "static\/build\/manifest.json": run "deno task build" before deploying/,
      );
    } finally {
      await Deno.remove(project.root, { recursive: true });
    }
  },
});
