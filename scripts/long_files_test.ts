// The house rule for file length: a hand-written source file over 600 lines says at its top, in
// one line starting "Long on purpose:", why it stays whole (issue 40). Generated files are exempt.
import { deepEqual } from "node:assert/strict";

const LIMIT = 600;
const SOURCE = /\.(ts|tsx|mjs|js|css)$/;
const GENERATED = [
  /^generated\//,
  /\.gen\.ts$/,
  /\/released\//,
  /^static\/docs\.js$/,
];

async function trackedFiles(): Promise<string[]> {
  const out = await new Deno.Command("git", {
    args: ["ls-files"],
    cwd: new URL("..", import.meta.url),
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout).split("\n").filter((f) =>
    SOURCE.test(f) && !GENERATED.some((g) => g.test(f))
  );
}

Deno.test("every hand-written file over 600 lines names its reason in its first line", async () => {
  const unexplained: string[] = [];
  for (const file of await trackedFiles()) {
    let text: string;
    try {
      text = await Deno.readTextFile(new URL(`../${file}`, import.meta.url));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue; // deleted, not yet committed
      throw error;
    }
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    if (lines <= LIMIT) continue;
    const first = text.slice(0, text.indexOf("\n"));
    if (!/^(\/\/|\/\*) Long on purpose: \S/.test(first)) {
      unexplained.push(`${file} (${lines} lines)`);
    }
  }
  deepEqual(unexplained, []);
});
