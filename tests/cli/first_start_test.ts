// The first start of `deno task start` on an empty DATA_DIR: one line per step with its duration, then the closing block; a second start is warm.
import { equal, match, ok } from "node:assert/strict";
import { privateProcessEnv, PROJECT_ROOT } from "../support/process.ts";

/** Starts main.ts, reads stdout until the closing block is complete, and answers what it printed and the port. */
async function startUntilReady(env: Record<string, string>) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", "--unstable-cron", "main.ts"],
    cwd: PROJECT_ROOT,
    env: { ...env, DATABASE_URL: env.DATABASE_URL ?? "" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const deadline = setTimeout(() => child.kill("SIGKILL"), 150_000);
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let printed = "";
  const stop = async () => {
    clearTimeout(deadline);
    try {
      child.kill("SIGINT");
    } catch { /* already exited */ }
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
    await child.status;
    await stderr;
  };
  try {
    while (!/curl -H 'Host: [^\n]+\n/.test(printed)) {
      const { value, done } = await reader.read();
      if (done) {
        throw new Error(`main.ts exited early:\n${printed}\n${await stderr}`);
      }
      printed += value;
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const port = Number(
    /Listening on port (\d+)/.exec(printed)![1],
  );
  return { printed, port, stop };
}

const STEP = (label: string) =>
  new RegExp(`^✓ ${label}(?: \\([^)]*\\))?: \\d+ ms$`, "m");

Deno.test("the first start prints each step with its duration and a closing block with the admin, password file, docs, an example read and the hosts; the second start is warm; another empty data folder starts from the prepared demo with its own password (issue 17)", async () => {
  const p = await privateProcessEnv({ PORT: "0", LOG_REQUESTS: "false" });
  const embedded = !p.env.DATABASE_URL;
  let firstPassword = "";
  try {
    const first = await startUntilReady(p.env);
    try {
      const out = first.printed;
      if (embedded) {
        ok(
          STEP("Embedded database created").test(out) ||
            STEP("Embedded database from the prepared schema").test(out) ||
            STEP("Prepared demo").test(out),
          out,
        );
      }
      match(out, STEP("Migrations"));
      match(out, /^✓ Migrations \((\d+ applied|none pending)\)/m);
      match(out, STEP("Admin scripts built"));
      match(
        out,
        /^✓ Demo site \((created|copied from the prepared demo, with a new admin password): \d+ entries, \d+ search documents\): \d+ ms$/m,
      );
      // A start that seeded the demo keeps it for the next empty start (embedded only).
      if (/^✓ Demo site \(created/m.test(out)) {
        if (embedded) {
          match(out, STEP("Prepared demo saved for the next empty start"));
        } else ok(!out.includes("Prepared demo"), out);
      }
      // Steps come before the server listens; the closing block after.
      ok(out.indexOf("✓ Demo site") < out.indexOf("Listening on port"));
      const block = out.slice(out.indexOf("Stave is ready after"));
      match(block, /^Stave is ready after \d+\.\d s$/m);
      match(block, /^ {2}Admin: +http:\/\/localhost:\d+\/admin$/m);
      match(
        block,
        /^ {2}Sign in at http:\/\/localhost:\d+\/admin as admin@example\.com with password \S{20,}$/m,
      );
      ok(block.includes(`${p.dataDir}/demo-admin.txt`));
      match(block, /^ {2}API docs: +http:\/\/localhost:\d+\/docs$/m);
      match(
        block,
        new RegExp(
          `^  Example read: http://localhost:${first.port}/v1/posts\\?limit=2$`,
          "m",
        ),
      );
      match(block, /^ {2}Host names: +localhost \(demo\)$/m);
      // The site as visitors see it, drawn by the renderer beside the embedded demo (issue 41;
      // a real database means production, where the renderer runs on its own).
      const siteUrl = /^ {2}Site: +(http:\/\/localhost:\d+) /m.exec(block)?.[1];
      if (embedded) {
        ok(siteUrl, block);
        const home = await fetch(`${siteUrl}/`);
        equal(home.status, 200);
        match(await home.text(), /Content that stays in shape/);
      } else equal(siteUrl, undefined, block);
      firstPassword = /with password (\S+)$/m.exec(block)![1];
      // What the block names answers.
      const read = await fetch(
        `http://localhost:${first.port}/v1/posts?limit=2`,
      );
      equal(read.status, 200);
      equal((await read.json()).data.length, 2);
      const docs = await fetch(`http://localhost:${first.port}/docs`);
      equal(docs.status, 200);
      await docs.body?.cancel();
    } finally {
      await first.stop();
    }

    const second = await startUntilReady(p.env);
    try {
      const out = second.printed;
      if (embedded) match(out, STEP("Embedded database opened"));
      match(out, /^✓ Migrations \(none pending\): \d+ ms$/m);
      match(out, /^✓ Demo site \(already there: \d+ entries/m);
      match(
        out,
        new RegExp(
          `^  Demo admin: +admin@example\\.com, password in ${p.dataDir}/demo-admin\\.txt$`,
          "m",
        ),
      );
      ok(!/with password/.test(out), "the password is shown only once");
    } finally {
      await second.stop();
    }

    if (!embedded) return;
    // Another empty data folder starts from the demo the first start prepared (or copied), and
    // its admin gets a password of its own.
    const other = await privateProcessEnv({ PORT: "0", LOG_REQUESTS: "false" });
    try {
      const third = await startUntilReady(other.env);
      try {
        const out = third.printed;
        match(
          out,
          /^✓ Prepared demo \(copied into the empty data folder\): \d+ ms$/m,
        );
        match(out, STEP("Embedded database opened"));
        match(
          out,
          /^✓ Demo site \(copied from the prepared demo, with a new admin password: \d+ entries/m,
        );
        const password = /with password (\S+)$/m.exec(out)![1];
        ok(password !== firstPassword, "each copy has its own password");
        match(
          await Deno.readTextFile(`${other.dataDir}/demo-admin.txt`),
          new RegExp(`^password: ${password}$`, "m"),
        );
        const read = await fetch(
          `http://localhost:${third.port}/v1/posts?limit=2`,
        );
        equal(read.status, 200);
        equal((await read.json()).data.length, 2);
      } finally {
        await third.stop();
      }
    } finally {
      await other.cleanup();
    }
  } finally {
    await p.cleanup();
  }
});
