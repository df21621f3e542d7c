// `stave-client types`: writes the TypeScript types of a site's models from its `/v1/_client`
// answer. The site API token comes from STAVE_SITE_TOKEN, never from the command line.
import { modelTypesSource, readModelDownload } from "./model_types.ts";

/** The few parts of Node's (and Deno's) `process` this command uses. */
export interface Process {
  argv: string[];
  env: Record<string, string | undefined>;
  exitCode?: number;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

const HELP =
  `Usage: stave-client types --url <site /v1 address> [--out <file>] [--import <module>]

Writes the TypeScript types of the site's models (StaveModels, and <Model>Item per model).
The site API token is read from the environment variable STAVE_SITE_TOKEN.

Example:
  STAVE_SITE_TOKEN=sv_site_... npx stave-client types --url https://example.com/v1 --out src/stave-models.d.ts
`;

/** Runs the command with `args` (without the program name); answers the exit code. */
export async function main(args: string[], proc: Process): Promise<number> {
  const [command, ...rest] = args;
  if (command !== "types" || rest.includes("--help")) {
    (command === "types" || command === "--help" || command === undefined
      ? proc.stdout
      : proc.stderr).write(HELP);
    return command === "types" || command === "--help" ? 0 : 2;
  }
  const flags: Record<string, string> = {};
  for (let i = 0; i < rest.length; i += 2) {
    const [name, value] = [rest[i], rest[i + 1]];
    if (!["--url", "--out", "--import"].includes(name) || value === undefined) {
      proc.stderr.write(
        `Unknown option "${name}": expected --url, --out or --import\n\n${HELP}`,
      );
      return 2;
    }
    flags[name.slice(2)] = value;
  }
  const token = proc.env.STAVE_SITE_TOKEN;
  if (!flags.url || !token) {
    proc.stderr.write(
      `Missing ${
        !flags.url ? "--url" : "STAVE_SITE_TOKEN"
      }: the types need the site's /v1 address and a site API token (Settings → API in the admin)\n`,
    );
    return 2;
  }
  let source: string;
  try {
    const download = await readModelDownload(flags.url, token);
    source = modelTypesSource(download, { importFrom: flags.import });
  } catch (error) {
    proc.stderr.write(`${(error as Error).message}\n`);
    return 1;
  }
  if (!flags.out) {
    proc.stdout.write(source);
    return 0;
  }
  // A runtime module: a bundler building the browser part never follows this import.
  const fs = await import("node:fs/promises" as string) as {
    writeFile(path: string, text: string): Promise<void>;
  };
  await fs.writeFile(flags.out, source);
  proc.stdout.write(`Wrote ${flags.out}\n`);
  return 0;
}
