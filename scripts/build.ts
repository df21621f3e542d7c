// `deno task build`: bundles the islands ahead of time for hosts that cannot build at start
// (Deno Deploy); `deno task build --check` exits 1 naming what changed when the bundles are stale.
import { PROJECT_ROOT } from "../core/server.ts";
import {
  buildPrebuiltIslands,
  stalePrebuiltIslands,
} from "../core/web/islands_prebuilt.ts";
import { manifest } from "../routes.gen.ts";

const options = { root: PROJECT_ROOT, islands: manifest.islands };
if (Deno.args.includes("--check")) {
  const stale = await stalePrebuiltIslands(options);
  if (stale.length > 0) {
    console.error(
      `The prebuilt island bundles are stale: ${stale.slice(0, 5).join("; ")}${
        stale.length > 5 ? ` (and ${stale.length - 5} more)` : ""
      }; run "deno task build"`,
    );
    Deno.exit(1);
  }
  console.log("The prebuilt island bundles match the code");
} else {
  const built = await buildPrebuiltIslands(options);
  console.log(
    `Built ${built.islands.length} islands from ${
      Object.keys(built.inputs).length
    } source files into static/build/`,
  );
}
