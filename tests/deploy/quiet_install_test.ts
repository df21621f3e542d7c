// A quiet first start (issue 44 item 6): `deno task start` installs the npm packages with
// `deno install --quiet` before Stave prints its first step, and no install prints a notice a
// newcomer cannot act on. The whole first start with an empty DENO_DIR takes minutes of
// downloads, so this installs the project's exact packages (its deno.json and deno.lock) into an
// empty folder from Deno's cache instead: the same install, the same output rules.
import { deepEqual, equal, ok } from "node:assert/strict";
import { PROJECT_ROOT } from "../support/process.ts";

const decoder = new TextDecoder();

async function denoIn(dir: string, args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: dir,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    text: decoder.decode(out.stdout) + decoder.decode(out.stderr),
  };
}

async function projectCopy(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "stave-install-" });
  for (const file of ["deno.json", "deno.lock"]) {
    await Deno.copyFile(`${PROJECT_ROOT}/${file}`, `${dir}/${file}`);
  }
  return dir;
}

Deno.test({
  name:
    "the start task installs quietly before Stave runs: `deno install --quiet` of the project's packages prints nothing, and a plain install prints no ignored-build-scripts notice (issue 44 item 6)",
  async fn() {
    const config = JSON.parse(
      await Deno.readTextFile(`${PROJECT_ROOT}/deno.json`),
    );
    // `deno task` itself installs (and prints a line per package) when Deno manages the folder.
    equal(config.nodeModulesDir, "manual");
    ok(
      config.tasks.start.startsWith(
        "deno install --quiet && deno run --quiet ",
      ),
      config.tasks.start,
    );
    ok(config.tasks.test.startsWith("deno install --quiet && "));
    const dir = await projectCopy();
    try {
      const quiet = await denoIn(dir, ["install", "--quiet"]);
      equal(quiet.code, 0, quiet.text);
      equal(quiet.text, "");
      const installed = [];
      for await (const entry of Deno.readDir(`${dir}/node_modules`)) {
        installed.push(entry.name);
      }
      ok(installed.includes("hono") && installed.includes("sharp"));
      await Deno.remove(`${dir}/node_modules`, { recursive: true });
      const plain = await denoIn(dir, ["install"]);
      equal(plain.code, 0, plain.text);
      ok(/Initialize /.test(plain.text), "a plain install shows its progress");
      deepEqual(
        plain.text.split("\n").filter((line) =>
          /Warning|Ignored build scripts|approve-scripts/.test(line)
        ),
        [],
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
