// `deno task svc`: --help on the tool and on every command prints usage on stdout, exits 0 and touches no data; bad input exits 2.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { COMMANDS } from "../../cli/usage.ts";
import { runDeno } from "../support/process.ts";

const SVC = ["run", "-A", "--unstable-kv", "cli/svc.ts"];

async function withUnusedDataDir(
  fn: (env: Record<string, string>, dataDir: string) => Promise<void>,
) {
  const parent = await Deno.makeTempDir({ prefix: "stave-help-" });
  // DATA_DIR does not exist; a command that touched data would create it.
  const dataDir = `${parent}/data`;
  try {
    await fn({ DATA_DIR: dataDir, NO_COLOR: "1" }, dataDir);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("svc --help, -h and help print the overview naming every command on stdout and exit 0", async () => {
  await withUnusedDataDir(async (env, dataDir) => {
    for (const flag of ["--help", "-h", "help"]) {
      const run = await runDeno([...SVC, flag], env);
      equal(run.code, 0, `${flag}: ${run.stderr}`);
      equal(run.stderr, "", flag);
      match(run.stdout, /^Usage: deno task svc <command>/);
      for (const name of Object.keys(COMMANDS)) {
        match(run.stdout, new RegExp(`\\n  ${name} `), `${flag} lists ${name}`);
      }
    }
    equal(await exists(dataDir), false);
  });
});

Deno.test("deno task svc --help works through the task too", async () => {
  await withUnusedDataDir(async (env, dataDir) => {
    const run = await runDeno(["task", "svc", "--help"], env);
    equal(run.code, 0, run.stderr);
    match(run.stdout, /^Usage: deno task svc <command>/);
    equal(await exists(dataDir), false);
  });
});

Deno.test("svc <command> --help prints that command's usage on stdout, exits 0 and touches no data, for every command", async () => {
  await withUnusedDataDir(async (env, dataDir) => {
    for (const name of Object.keys(COMMANDS)) {
      for (const flag of ["--help", "-h"]) {
        // --help wins even beside other (or missing) options: migrate --help must not migrate.
        const run = await runDeno([...SVC, name, "--json", flag], env);
        equal(run.code, 0, `${name} ${flag}: ${run.stderr}`);
        equal(run.stderr, "", `${name} ${flag}`);
        match(run.stdout, new RegExp(`^Usage: deno task svc ${name}\\b`));
        match(run.stdout, /--help, -h/);
        for (const option of Object.keys(COMMANDS[name as "migrate"].options)) {
          ok(
            run.stdout.includes(`--${option}`),
            `${name} documents --${option}`,
          );
        }
      }
    }
    equal(await exists(dataDir), false);
  });
});

Deno.test("an unknown option, a missing option or an unknown command exits 2 with the usage on stderr and touches no data", async () => {
  await withUnusedDataDir(async (env, dataDir) => {
    const cases: [string[], RegExp, RegExp][] = [
      [["migrate", "--bogus"], /Unknown option '--bogus'/, /svc migrate/],
      [["bootstrap", "--json", "--what"], /Unknown option/, /svc bootstrap/],
      [
        ["bootstrap", "--json", "--domain", "x.example"],
        /Missing: --locales, --admin-email/,
        /svc bootstrap/,
      ],
      [["credential", "--json"], /Missing: --domain/, /svc credential/],
      [["launch"], /Unknown command "launch"/, /svc <command>/],
      [[], /Missing command/, /svc <command>/],
    ];
    for (const [args, reason, usage] of cases) {
      const run = await runDeno([...SVC, ...args], env);
      equal(run.code, 2, args.join(" "));
      equal(run.stdout, "", args.join(" "));
      match(run.stderr, reason);
      match(run.stderr, usage);
    }
    equal(await exists(dataDir), false);
  });
});

Deno.test("a command whose store cannot be opened says so in one line naming the setting, exit 1, no stack trace", async () => {
  await withUnusedDataDir(async (env) => {
    const run = await runDeno([...SVC, "migrate"], {
      ...env,
      DATABASE_URL: "postgres://postgres:hunter2@127.0.0.1:1/none",
    });
    equal(run.code, 1);
    const lines = run.stderr.trim().split("\n");
    deepEqual(lines.length, 1, run.stderr);
    match(
      lines[0],
      /^setting DATABASE_URL: cannot use PostgreSQL at 127\.0\.0\.1:1\/none: /,
    );
    equal(run.stderr.includes("hunter2"), false);
  });
});
