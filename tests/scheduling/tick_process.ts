// A scheduling plugin process for the two-process test: the real plugin (server, database on
// PostgreSQL, KV file, tick) with its clock and its ticks driven over stdin, one command a line:
//   now <epoch ms>   sets the clock          → "ok"
//   code             issues an activation code → the code
//   tick             runs one tick           → the report as JSON
// It prints its origin first. Everything it answers is one line on stdout.
import { startScheduler } from "../../plugins/scheduling/server.ts";
import { openSharedKv } from "../../plugins/sdk/shared_kv.ts";

const env = (name: string) => {
  const v = Deno.env.get(name);
  if (!v) throw new Error(`tick_process: ${name} is not set`);
  return v;
};
let clock = Number(env("SCHED_NOW"));
const kv = await openSharedKv(env("SCHED_KV"));
const scheduler = await startScheduler({
  adminSecret: env("SCHED_ADMIN_SECRET"),
  tokenKey: Uint8Array.from(
    atob(env("SCHED_TOKEN_KEY")),
    (c) => c.charCodeAt(0),
  ),
  database: { url: env("SCHED_DATABASE_URL") },
  kv,
  servicePolicy: { development: true, devOrigins: [env("SCHED_SVC_ORIGIN")] },
  now: () => clock,
  random: () => 0.5,
  sleep: (ms) => {
    clock += ms;
    return Promise.resolve();
  },
});
const out = (line: string) =>
  Deno.stdout.write(new TextEncoder().encode(`${line}\n`));
await out(scheduler.origin);
async function* lines(): AsyncGenerator<string> {
  let buffered = "";
  for await (
    const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())
  ) {
    buffered += chunk;
    let at;
    while ((at = buffered.indexOf("\n")) >= 0) {
      yield buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
    }
  }
}
for await (const line of lines()) {
  const [command, arg] = line.trim().split(" ");
  if (command === "now") {
    clock = Number(arg);
    await out("ok");
  } else if (command === "code") {
    await out(await scheduler.issueCode());
  } else if (command === "tick") {
    await out(JSON.stringify(await scheduler.tick()));
  } else if (command === "quit") {
    break;
  }
}
await scheduler.close();
kv.close();
