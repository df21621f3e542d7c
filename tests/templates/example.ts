// The example template of docs/templates.md as an upload `{ manifest, source }`, and variants of
// it that each break one rule.
const DIR = new URL("../../docs/template-example/", import.meta.url).pathname;

/** Every file of the example except its manifest, by relative path. */
export async function exampleSource(): Promise<Record<string, string>> {
  const source: Record<string, string> = {};
  async function walk(dir: string, prefix: string) {
    for await (const e of Deno.readDir(dir)) {
      if (e.isDirectory) await walk(`${dir}/${e.name}`, `${prefix}${e.name}/`);
      else if (e.name !== "manifest.json") {
        source[`${prefix}${e.name}`] = await Deno.readTextFile(
          `${dir}/${e.name}`,
        );
      }
    }
  }
  await walk(DIR, "");
  return source;
}

/** The example upload. */
export async function exampleUpload(): Promise<
  { manifest: Record<string, unknown>; source: Record<string, string> }
> {
  return {
    manifest: JSON.parse(await Deno.readTextFile(`${DIR}/manifest.json`)),
    source: await exampleSource(),
  };
}
