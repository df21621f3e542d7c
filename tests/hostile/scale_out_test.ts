// Scale-out (issue 10 point 8): two real service processes on one PostgreSQL and one KV file share
// idempotency claims, the management rate limit and public answers (docs/deploy.md).
import { equal, ok } from "node:assert/strict";
import {
  privateProcessEnv,
  runDeno,
  type RunningService,
  spawnService,
} from "../support/process.ts";

const SCOPES = "content:read,content:write,lifecycle:publish,settings:write";

async function credential(env: Record<string, string>, name: string) {
  const made = await runDeno([
    "run",
    "-A",
    "--unstable-kv",
    "cli/svc.ts",
    "credential",
    "--json",
    "--domain",
    "localhost",
    "--admin-email",
    "admin@example.com",
    "--name",
    name,
    "--scopes",
    SCOPES,
  ], env);
  equal(made.code, 0, made.stderr);
  return JSON.parse(made.stdout).management_credential.secret as string;
}

Deno.test({
  name:
    "two service processes on one PostgreSQL and one KV file: one effect per key, one rate limit, kept public answers follow the other's publish",
  // PGlite is one process's database (the data folder is locked); scale-out needs PostgreSQL.
  ignore: !Deno.env.get("DATABASE_URL"),
  async fn() {
    const p = await privateProcessEnv({});
    const services: RunningService[] = [];
    try {
      // The first process migrates and seeds the demo site; the second starts on both as found.
      services.push(await spawnService({ ...p.env, DEMO_SITE: "true" }));
      services.push(await spawnService({ ...p.env, DEMO_SITE: "false" }));
      const [a, b] = services;
      const secret = await credential(p.env, "scale");
      const call = (
        via: RunningService,
        method: string,
        path: string,
        options: { body?: unknown; key?: string; secret?: string } = {},
      ) => {
        const headers: Record<string, string> = {
          authorization: `Bearer ${options.secret ?? secret}`,
        };
        if (options.key) headers["idempotency-key"] = options.key;
        if (options.body !== undefined) {
          headers["content-type"] = "application/json";
        }
        return fetch(`http://127.0.0.1:${via.port}/api/manage/v1${path}`, {
          method,
          headers,
          body: options.body === undefined
            ? undefined
            : JSON.stringify(options.body),
        });
      };

      // 1. Ten concurrent writes with one key, split across both: exactly one effect.
      const answers = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const r = await call(i % 2 ? b : a, "POST", "/languages", {
            key: "scale-fr",
            body: { code: "fr" },
          });
          return { status: r.status, body: await r.json() };
        }),
      );
      for (const answer of answers) {
        ok(
          answer.status === 201 ||
            (answer.status === 409 &&
              answer.body.error.code === "idempotency_in_progress"),
          `${JSON.stringify(answer)}\n${a.stdout()}\n${b.stdout()}`,
        );
      }
      ok(answers.some((x) => x.status === 201));
      const languages = await (await call(b, "GET", "/languages")).json();
      equal(
        languages.data.filter((l: { code: string }) => l.code === "fr").length,
        1,
        "one language added",
      );

      // 2. A burst split across both meets one limit of 120 per 60 s.
      const burst = await credential(p.env, "burst");
      const statuses: number[] = [];
      for (let round = 0; round < 13; round++) {
        statuses.push(
          ...await Promise.all(
            Array.from({ length: 10 }, async (_, i) => {
              const r = await call(i % 2 ? b : a, "GET", "/site", {
                secret: burst,
              });
              await r.body?.cancel();
              return r.status;
            }),
          ),
        );
      }
      equal(statuses.filter((s) => s === 200).length, 120);
      equal(statuses.filter((s) => s === 429).length, 10);

      // 3. A public answer kept by A is not served after B publishes a change.
      // The demo site answers on the host name localhost (fetch cannot set Host).
      const list = await fetch(`http://localhost:${a.port}/v1/posts?limit=1`);
      equal(list.status, 200, await list.clone().text());
      const before = (await list.json()).data[0];
      const read = async () => {
        const r = await fetch(
          `http://localhost:${a.port}/v1/posts/${before.slug}`,
        );
        equal(r.status, 200, await r.clone().text());
        return (await r.json()).data.fields.title as string;
      };
      const title = await read();
      ok(title && title !== "Changed through B");
      equal(await read(), title, "kept and reused on A");
      const models = await (await call(b, "GET", "/models")).json();
      const posts = models.data.find((
        m: { definition: { model: { slug: string } } },
      ) => m.definition.model.slug === "posts");
      ok(posts, JSON.stringify(models).slice(0, 400));
      let entry;
      let cursor: string | null = null;
      do {
        const page: {
          data: { locales: Record<string, { slug: string }> }[];
          page: { next_cursor: string | null };
        } = await (await call(
          b,
          "GET",
          `/entries?model_id=${posts.model_id}&limit=100${
            cursor ? `&cursor=${cursor}` : ""
          }`,
        )).json();
        entry = page.data.find((e) => e.locales.en?.slug === before.slug);
        cursor = page.page.next_cursor;
      } while (!entry && cursor);
      ok(entry, "the post is found through the management API");
      const full = await (await call(
        b,
        "GET",
        `/entries/${(entry as unknown as { id: string }).id}`,
      )).json();
      const en = full.locales.en;
      const saved = await call(b, "PUT", `/entries/${full.id}`, {
        key: "scale-save",
        body: {
          locale: "en",
          expected_current_version_id: en.current_version_id,
          fields: { ...en.fields, title: "Changed through B" },
        },
      });
      equal(saved.status, 200, await saved.clone().text());
      const savedBody = await saved.json();
      const published = await call(b, "POST", `/entries/${full.id}/publish`, {
        key: "scale-publish",
        body: {
          locale: "en",
          expected_current_version_id: savedBody.locales.en.current_version_id,
          expected_workflow_revision: savedBody.revision,
        },
      });
      equal(published.status, 200, await published.clone().text());
      await published.body?.cancel();
      equal(await read(), "Changed through B");
    } finally {
      for (const service of services) {
        const stopped = await service.stop();
        equal(stopped.code, 0, stopped.stderr);
      }
      await p.cleanup();
    }
  },
});
