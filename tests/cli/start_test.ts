// `deno task start`: the service with embedded defaults answers /health for the demo site and stops on SIGINT.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { privateProcessEnv, PROJECT_ROOT } from "../support/process.ts";

Deno.test("main.ts starts with its defaults, serves the demo site, prints how to sign in and stops cleanly on SIGINT", async () => {
  const p = await privateProcessEnv({ PORT: "0", LOG_REQUESTS: "true" });
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", "--unstable-cron", "main.ts"],
    cwd: PROJECT_ROOT,
    env: { ...p.env, DATABASE_URL: p.env.DATABASE_URL ?? "" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // A child that never starts or never stops fails the test instead of hanging the suite. The
  // first start of a checkout seeds the demo from nothing; beside two other suite parts on a slow
  // day that took 81 s (2026-11-27), and with the renderer, template services and demo regions
  // added, 98 s of seeding alone on a machine at load 15 (2026-11-28).
  const deadline = setTimeout(() => child.kill("SIGKILL"), 240_000);
  const stderr = new Response(child.stderr).text();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let printed = "";
  try {
    let port = 0;
    // The closing block ends with the curl line naming a host.
    while (!port || !/curl -H 'Host: [^\n]+\n/.test(printed)) {
      const { value, done } = await lines.read();
      if (done) {
        throw new Error(`main.ts exited early:\n${printed}\n${await stderr}`);
      }
      printed += value;
      port = Number(
        /Listening on port (\d+)/.exec(printed)?.[1] ?? 0,
      );
    }
    match(
      printed,
      /Sign in at http:\/\/localhost:\d+\/admin as admin@example\.com with password \S{20,}/,
    );
    // The first address printed answers the demo site, and so does the admin's, on the port
    // actually listened on (PORT is 0 here) (issue 44 item 6).
    const firstUrl = /http:\/\/[^\s,)]+/.exec(printed)![0];
    const admin = /^ {2}Admin: +(\S+)$/m.exec(printed)![1];
    equal(admin, `http://localhost:${port}/admin`);
    for (const url of [firstUrl, admin]) {
      const page = await fetch(url, { redirect: "manual" });
      const text = await page.text();
      ok(page.status < 400, `${url} answered ${page.status}: ${text}`);
      ok(!text.includes("unknown_host"), url);
    }
    const health = await fetch(`http://localhost:${port}/health`);
    deepEqual(await health.json(), { ok: true, site: "demo" });
    const unknown = await fetch(`http://127.0.0.1:${port}/health`);
    equal(unknown.status, 404);
    equal((await unknown.json()).error.code, "unknown_host");
    child.kill("SIGINT");
    for (;;) {
      const { value, done } = await lines.read();
      if (done) break;
      printed += value;
    }
    const status = await child.status;
    equal(status.signal, null, "main.ts did not stop on SIGINT");
    equal(status.code, 0, await stderr);
    match(printed, /"path":"\/health","status":200/);
    match(printed, /Stopped/);
  } finally {
    clearTimeout(deadline);
    try {
      child.kill("SIGKILL");
    } catch { /* already exited */ }
    await child.status;
    await p.cleanup();
  }
});
