// Builds the JavaScript client package (clients/js) into dist/ with tsc, as `npm publish` ships it.

/** The TypeScript compiler the build runs (through npx, so the package itself needs nothing). */
export const TYPESCRIPT = "typescript@5.9.3";

/** Compiles `packageDir/src` into `packageDir/dist`; answers the files written. */
export async function buildClient(packageDir: string): Promise<string[]> {
  await Deno.remove(`${packageDir}/dist`, { recursive: true }).catch(() => {});
  const out = await new Deno.Command("npx", {
    args: ["-y", "-p", TYPESCRIPT, "tsc", "-p", `${packageDir}/tsconfig.json`],
    cwd: packageDir,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (out.code !== 0) {
    const text = new TextDecoder().decode(out.stdout) +
      new TextDecoder().decode(out.stderr);
    throw new Error(`Cannot build the client: tsc failed:\n${text}`);
  }
  const files: string[] = [];
  for await (const entry of Deno.readDir(`${packageDir}/dist`)) {
    if (!entry.isFile) continue;
    files.push(entry.name);
    // tsc rewrites `./x.ts` to `./x.js` in the modules but not in their declarations.
    if (entry.name.endsWith(".d.ts")) {
      const path = `${packageDir}/dist/${entry.name}`;
      const text = await Deno.readTextFile(path);
      await Deno.writeTextFile(
        path,
        text.replace(/(from\s+"\.\/[\w.]+)\.ts"/g, '$1.js"'),
      );
    }
  }
  await Deno.chmod(`${packageDir}/dist/bin.js`, 0o755);
  return files.sort();
}
