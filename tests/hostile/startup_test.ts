// Process-level start-up: one process per embedded data folder, and every bad setting stops
// start-up with one line naming the setting and the cause (no stack, no secret).
import { equal, match, ok } from "node:assert/strict";
import {
  privateProcessEnv,
  runDeno,
  spawnService,
} from "../support/process.ts";

const MAIN = ["run", "-A", "--unstable-kv", "--unstable-cron", "main.ts"];

/** The one line a failed start printed: exactly one non-empty stderr line, no stack frame. */
function oneLine(stderr: string): string {
  // Deno itself may say it waits for the shared node_modules folder; that line is not ours.
  const lines = stderr.split("\n").filter((l) =>
    l.trim() !== "" && !l.startsWith("Blocking waiting for file lock")
  );
  equal(lines.length, 1, `expected one line, got:\n${stderr}`);
  ok(!/^\s+at /m.test(stderr), `stack trace printed:\n${stderr}`);
  return lines[0];
}

Deno.test("a second service or svc command on a running service's DATA_DIR stops naming the folder and the holder's pid, changing nothing", async () => {
  // The lock guards embedded PGlite; PostgreSQL processes share their stores on purpose.
  const p = await privateProcessEnv({ DATABASE_URL: "" });
  const first = await spawnService(p.env);
  try {
    const second = await runDeno([...MAIN], { ...p.env, PORT: "0" });
    equal(second.code, 1);
    const line = oneLine(second.stderr);
    match(line, /^Data folder ".*" is in use by process (\d+)/);
    ok(line.includes(await Deno.realPath(p.dataDir)), line);
    ok(line.includes(`process ${first.pid}`), line);

    const svc = await runDeno([
      "run",
      "-A",
      "--unstable-kv",
      "cli/svc.ts",
      "bootstrap",
      "--json",
      "--domain",
      "locked.example",
      "--locales",
      "en",
      "--admin-email",
      "ops@locked.example",
    ], p.env);
    equal(svc.code, 1);
    match(oneLine(svc.stderr), new RegExp(`in use by process ${first.pid}`));
    equal(svc.stdout, "");

    const health = await fetch(`http://127.0.0.1:${first.port}/health`, {
      headers: { Host: "locked.example" },
    });
    equal(health.status, 404, "the refused bootstrap created no site");
    await health.body?.cancel();
  } finally {
    const stopped = await first.stop();
    equal(stopped.code, 0, stopped.stderr);
  }
  try {
    // Stopping releases the folder: the same command now works.
    const after = await runDeno([
      "run",
      "-A",
      "--unstable-kv",
      "cli/svc.ts",
      "migrate",
    ], p.env);
    equal(after.code, 0, after.stderr);
  } finally {
    await p.cleanup();
  }
});

interface BadStart {
  name: string;
  env: Record<string, string>;
  prepare?: (dataDir: string) => Promise<void>;
  line: RegExp;
  secret?: string;
}

Deno.test("start-up with a bad setting exits 1 with one line naming the setting and the cause", async () => {
  const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const cases: BadStart[] = [
    {
      name: "unreachable PostgreSQL",
      env: { DATABASE_URL: "postgres://stave:s3cret-pw@127.0.0.1:1/stave" },
      line:
        /^setting DATABASE_URL: cannot use PostgreSQL at 127\.0\.0\.1:1\/stave: .*ECONNREFUSED/,
      secret: "s3cret-pw",
    },
    {
      name: "corrupt KV file",
      env: { DATABASE_URL: "" },
      prepare: (dir) =>
        Deno.writeTextFile(`${dir}/kv.sqlite3`, "not a database ".repeat(300)),
      line:
        /^setting KV_PATH: cannot open the KV file ".*kv\.sqlite3": .*not a database/,
    },
    {
      name: "KV_PATH naming a folder",
      env: { DATABASE_URL: "", KV_PATH: "" },
      prepare: (dir) => Deno.mkdir(`${dir}/kvfolder`),
      line: /^setting KV_PATH: cannot open the KV file ".*kvfolder"/,
    },
    {
      name: "corrupt PGlite folder",
      env: { DATABASE_URL: "" },
      prepare: async (dir) => {
        await Deno.mkdir(`${dir}/pglite`);
        await Deno.writeTextFile(`${dir}/pglite/PG_VERSION`, "garbage");
      },
      line:
        /^setting DATA_DIR: cannot open the embedded database in ".*\/pglite": .*restore the folder from a backup, or move it away/,
    },
    {
      name: "HOST that is no address",
      env: { HOST: "999.1.1.1" },
      line: /^Invalid configuration: setting HOST: /,
    },
    {
      name: "HOST not on this machine",
      env: { HOST: "192.0.2.77" },
      line: /^setting HOST: cannot listen on 192\.0\.2\.77:0: /,
    },
    {
      name: "PORT in use",
      env: { PORT: String((busy.addr as Deno.NetAddr).port) },
      line: /^setting PORT: cannot listen on 127\.0\.0\.1:\d+: .*in use/i,
    },
    {
      name: "PUBLIC_URL with a query",
      env: { PUBLIC_URL: "http://cms.example?q=1" },
      line: /^Invalid configuration: setting PUBLIC_URL: /,
    },
    {
      name: "PUBLIC_URL with a path",
      env: { PUBLIC_URL: "http://cms.example/cms" },
      line: /^Invalid configuration: setting PUBLIC_URL: /,
    },
  ];
  const baseUrl = Deno.env.get("DATABASE_URL");
  if (baseUrl) {
    const missing = new URL(baseUrl);
    missing.pathname = "/stave_no_such_database";
    cases.push({
      name: "missing PostgreSQL database",
      env: { DATABASE_URL: missing.toString() },
      line:
        /^setting DATABASE_URL: cannot use PostgreSQL at .*\/stave_no_such_database: database "stave_no_such_database" does not exist$/,
    });
  }
  try {
    await Promise.all(cases.map(async (bad) => {
      const p = await privateProcessEnv({ DEMO_SITE: "false", ...bad.env });
      try {
        if (bad.env.KV_PATH === "") p.env.KV_PATH = `${p.dataDir}/kvfolder`;
        await bad.prepare?.(p.dataDir);
        const run = await runDeno(MAIN, { PORT: "0", ...p.env });
        equal(run.code, 1, `${bad.name}: ${run.stderr}`);
        const line = oneLine(run.stderr);
        match(line, bad.line, bad.name);
        if (bad.secret) ok(!line.includes(bad.secret), line);
        ok(!run.stdout.includes("listening"), bad.name);
      } finally {
        await p.cleanup();
      }
    }));
  } finally {
    busy.close();
  }
});
