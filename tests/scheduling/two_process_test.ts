// Two real scheduling-plugin processes on one PostgreSQL database and one KV file tick at the same
// moment: the due schedule is published exactly once (issue 14 point 4; SCH lease rows, PAPI-042).
// Stave runs in this process behind a real HTTP server on 127.0.0.1; each plugin process's clock
// is set over its stdin, so nothing waits on a timer. PostgreSQL only: PGlite holds one process.
import { equal, ok } from "node:assert/strict";
import { createSession } from "../../core/auth/session_store.ts";
import { insertCredential } from "../../core/credentials/credential_store.ts";
import { openTestApp, TEST_CLOCK_START, type TestApp } from "../support/app.ts";
import { serveLocally } from "../support/browser.ts";
import { createScratchDatabase } from "../support/db.ts";
import { saveTestEntry, siteWithPosts } from "../support/entries.ts";
import { PROJECT_ROOT } from "../support/process.ts";

const BASE_URL = Deno.env.get("DATABASE_URL");
const SITE_HOST = "ticks.test";
const CSRF = "c".repeat(43);

/** A plugin process: its origin, and one command answered by one line. */
interface TickProcess {
  origin: string;
  send(command: string): Promise<string>;
  stop(): Promise<void>;
}

async function startTickProcess(env: Record<string, string>) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", "tests/scheduling/tick_process.ts"],
    cwd: PROJECT_ROOT,
    env: { ...env, NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const nextLine = async (): Promise<string> => {
    while (!buffered.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the tick process ended early");
      buffered += value;
    }
    const at = buffered.indexOf("\n");
    const line = buffered.slice(0, at);
    buffered = buffered.slice(at + 1);
    return line;
  };
  const process: TickProcess = {
    origin: await nextLine(),
    async send(command) {
      await writer.write(new TextEncoder().encode(`${command}\n`));
      return await nextLine();
    },
    async stop() {
      await writer.write(new TextEncoder().encode("quit\n"));
      await writer.close();
      await reader.cancel();
      await child.status;
    },
  };
  return process;
}

Deno.test({
  name:
    "two plugin processes sharing PostgreSQL and a KV file tick at once: only the lease owner sends the due schedule, and it is published once (issue 14 point 4; PAPI-042)",
  ignore: !BASE_URL,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const schedulerDb = await createScratchDatabase(BASE_URL!);
    const dir = await Deno.makeTempDir({ prefix: "stave-ticks-" });
    const holder: { t?: TestApp } = {};
    // Stave behind a real server; the plugin processes name it by this address.
    const server = serveLocally((request, info) => {
      const url = new URL(request.url);
      const headers = new Headers(request.headers);
      headers.set("host", SITE_HOST);
      return holder.t!.app.fetch(
        new Request(`http://${SITE_HOST}${url.pathname}${url.search}`, {
          method: request.method,
          headers,
          body: request.body,
        }),
        info,
      );
    });
    const processes: TickProcess[] = [];
    try {
      const env = {
        SCHED_DATABASE_URL: schedulerDb.url,
        SCHED_KV: `${dir}/scheduling.kv`,
        SCHED_ADMIN_SECRET: "two-process-operator-secret",
        SCHED_TOKEN_KEY: btoa(
          String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))),
        ),
        SCHED_SVC_ORIGIN: server.baseUrl,
        SCHED_NOW: String(Date.parse(TEST_CLOCK_START)),
      };
      processes.push(
        ...await Promise.all([startTickProcess(env), startTickProcess(env)]),
      );
      // The first serves Stave's calls (manifest, hand-off, operations); both tick.
      const [first] = processes;
      const t = await openTestApp({
        env: {
          ENVIRONMENT: "development",
          PLUGIN_DEV_ORIGINS: first.origin,
          PUBLIC_URL: server.baseUrl,
        },
      });
      holder.t = t;
      const { siteId, adminId, modelId } = await siteWithPosts(
        t.services,
        SITE_HOST,
        "admin@ticks.test",
      );
      const session = (await createSession(
        { db: t.services.db, clock: t.clock },
        adminId,
      )).token;
      const installed = await t.app.request(
        `http://${SITE_HOST}/api/plugins`,
        {
          method: "POST",
          headers: {
            host: SITE_HOST,
            cookie: `stave_session=${session}; stave_csrf=${CSRF}`,
            "x-csrf-token": CSRF,
            origin: `http://${SITE_HOST}`,
            "content-type": "application/json",
          },
          body: JSON.stringify({
            manifest_url: `${first.origin}/svc/manifest.json`,
            activation_code: await first.send("code"),
            grant: {
              capabilities: [
                "content:read",
                "workflow:read",
                "workflow:publish",
                "workflow:locale",
              ],
              model_ids: [modelId],
            },
          }),
        },
      );
      const install = await installed.json();
      equal(installed.status, 201, JSON.stringify(install));
      const installationId = install.data.id as string;

      // A schedule for 11:00 UTC, made through the Management API as an agent would.
      const { groupId, instances } = await saveTestEntry({
        db: t.services.db,
        clock: t.clock,
        siteId,
        userId: adminId,
        modelId,
      }, { en: { title: "Ticked once" } });
      const current = (await t.services.db.selectFrom("entry_groups")
        .select("current_version_id").where("id", "=", groupId)
        .executeTakeFirstOrThrow()).current_version_id!;
      const { secret } = await insertCredential(t.services.db, t.clock, {
        siteId,
        creatorId: adminId,
        name: "agent",
        scopes: ["content:read", "lifecycle:publish", "plugins:use"],
        models: null,
      });
      const made = await t.app.request(
        `http://${SITE_HOST}/api/manage/v1/plugins/${installationId}/operations/schedule-draft/invoke`,
        {
          method: "POST",
          headers: {
            host: SITE_HOST,
            authorization: `Bearer ${secret}`,
            "content-type": "application/json",
            "idempotency-key": crypto.randomUUID(),
          },
          body: JSON.stringify({
            instance_id: instances.en,
            input: {
              transition: "publish:published",
              due_at: "2026-11-23T11:00:00Z",
              timezone: "UTC",
              version_id: current,
            },
          }),
        },
      );
      equal(made.status, 200, await made.clone().text());
      await made.body?.cancel();

      // 11:01 on every clock; both processes tick at the same moment.
      const due = new Date("2026-11-23T11:01:00Z");
      t.clock.set(due);
      for (const p of processes) {
        equal(await p.send(`now ${due.getTime()}`), "ok");
      }
      const reports = (await Promise.all(processes.map((p) => p.send("tick"))))
        .map((line) =>
          JSON.parse(line) as { claimed: number; completed: number }
        );
      equal(
        reports.reduce((n, r) => n + r.completed, 0),
        1,
        JSON.stringify(reports),
      );
      equal(reports.reduce((n, r) => n + r.claimed, 0), 1);
      const published = await t.services.db.selectFrom("entries")
        .select("published_version_id").where("id", "=", instances.en)
        .executeTakeFirstOrThrow();
      equal(published.published_version_id, current);
      const publishes = await t.services.db.selectFrom("audit_entries")
        .select("action").where("site_id", "=", siteId)
        .where("action", "like", "%publish%").execute();
      equal(publishes.length, 1, JSON.stringify(publishes));

      // Later ticks of either process find nothing left to send.
      const again = await Promise.all(processes.map((p) => p.send("tick")));
      ok(again.every((line) => JSON.parse(line).claimed === 0), again.join());
      await t.close();
    } finally {
      await Promise.all(processes.map((p) => p.stop().catch(() => {})));
      await server.close();
      await schedulerDb.drop().catch(() => {});
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
