// Grants, the pinned manifest and where an installation token may (never) appear, with the
// example plugin as a real HTTP server (spec 1 parts 2.1, 2.2, 3.1, 5; PLG).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { CAPABILITIES } from "../../core/plugins/protocol.ts";
import { saveTestEntry, siteWithPosts } from "../support/entries.ts";
import { manager, type PluginWorld, withPluginWorld } from "./world.ts";

type Json = Record<string, unknown>;

async function outcome(res: Response): Promise<[number, string]> {
  return [res.status, (await res.json()).outcome?.code];
}

Deno.test("the pinned manifest's activation_url is the only hand-off URL: a manifest changed remotely is not read on rotation (PLG-008)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    // The plugin now serves another plugin's manifest; without an upgrade nothing reads it.
    w.plugin.behaviour.manifest = "other_id";
    const rotated = await w.admin("POST", `/api/plugins/${id}/rotate`, {
      code: await w.plugin.issueCode(id),
    });
    equal(rotated.status, 200);
    deepEqual(w.plugin.handoffs.map((h) => h.kind), ["activate", "rotate"]);
    equal(
      (await w.plugin.api(id, "/context")).status,
      200,
      "the rotated token works",
    );
    // The other way round: the stored URL is followed even when the plugin no longer serves it.
    const row = await w.services.db.selectFrom("plugin_installations")
      .select("manifest").where("id", "=", id).executeTakeFirstOrThrow();
    const manifest = (typeof row.manifest === "string"
      ? JSON.parse(row.manifest)
      : row.manifest) as Json;
    await w.services.db.updateTable("plugin_installations").set({
      manifest: JSON.stringify({
        ...manifest,
        activation_url: `${w.plugin.origin}/svc/moved`,
      }),
    }).where("id", "=", id).execute();
    w.plugin.behaviour.manifest = "ok";
    const moved = await w.admin("POST", `/api/plugins/${id}/rotate`, {
      code: await w.plugin.issueCode(id),
    });
    equal((await moved.json()).error.code, "activation_refused");
    equal(w.plugin.handoffs.length, 2, "nothing reached /svc/activate");
  }));

Deno.test("a renamed model keeps its grant; a deleted model's id is inert and nothing errors (PLG-011)", () =>
  withPluginWorld(async (w) => {
    const schema = await manager(w, ["schema:write"]);
    const created = await schema("POST", "/models", {
      definition: {
        model: { name: "Notes", slug: "notes" },
        fields: [{ key: "title", label: "Title", type: "text" }],
      },
    });
    equal(created.status, 201, JSON.stringify(created.body));
    const notesId = String(created.body.model_id);
    const id = await w.install({ model_ids: [w.modelId, notesId] });
    const { instances } = await w.entry({ en: { title: "Kept" } });

    const model = (await schema("GET", `/models/${w.modelId}`)).body;
    const renamed = await schema("PUT", `/models/${w.modelId}`, {
      expected_revision: model.revision,
      model: { name: "Articles", slug: "articles", enableI18n: true },
    });
    equal(renamed.status, 200, JSON.stringify(renamed.body));
    const read = await w.plugin.api(id, `/content/${instances.en}`);
    equal(read.status, 200, "the grant follows the id, not the slug");
    await read.body?.cancel();
    const context = (await (await w.plugin.api(id, "/context")).json()).data;
    deepEqual(
      context.grant.models.map((m: Json) => [m.id, m.slug]),
      [[w.modelId, "articles"], [notesId, "notes"]],
    );
    const page = await (await w.admin("GET", `/admin/settings/plugins/${id}`))
      .text();
    match(
      page,
      new RegExp(`<code>articles</code>\\s*<span class="muted">${w.modelId}`),
      "the admin UI shows the current slug beside the granted id",
    );

    const notes = (await schema("GET", `/models/${notesId}`)).body;
    const removed = await schema("POST", `/models/${notesId}/remove`, {
      expected_revision: notes.revision,
      confirm: notesId,
    });
    equal(removed.status, 200, JSON.stringify(removed.body));
    const after = await w.plugin.api(id, "/context");
    equal(after.status, 200);
    deepEqual(
      (await after.json()).data.grant.models.map((m: Json) => m.id),
      [w.modelId],
      "the deleted model drops out of the grant the plugin sees",
    );
    const list = await w.plugin.api(id, "/content");
    equal(list.status, 200);
    equal((await list.json()).data.length, 1);
    equal((await w.admin("GET", `/api/plugins/${id}`)).status, 200);
    equal((await w.plugin.api(id, `/content/${instances.en}`)).status, 200);
  }));

/** A plugin API call that needs one capability, and the request making it. */
interface Needing {
  capability: string;
  method: string;
  path: string;
  body?: unknown;
}

Deno.test("each capability withheld refuses the routes needing it with capability_refused (PLG-013)", () =>
  withPluginWorld(async (w) => {
    w.plugin.behaviour.capabilities = [...CAPABILITIES];
    const id = await w.install();
    const { instances } = await w.entry({ en: { title: "Capable" } });
    const delegation = await w.delegate(id, instances.en);
    const group = await w.services.db.selectFrom("entries")
      .innerJoin("entry_groups", "entry_groups.id", "entries.group_id")
      .select(["entry_groups.current_version_id", "entry_groups.revision"])
      .where("entries.id", "=", instances.en).executeTakeFirstOrThrow();
    const content = `/content/${instances.en}`;
    const publish = {
      kind: "publish",
      expected_current_version_id: group.current_version_id,
      expected_workflow_revision: group.revision,
      delegation_id: delegation,
    };
    const table: Needing[] = [
      { capability: "content:read", method: "GET", path: "/content" },
      { capability: "content:read", method: "GET", path: content },
      {
        capability: "content:read",
        method: "GET",
        path: `/drafts?delegation_id=${delegation}&instance_id=${instances.en}`,
      },
      {
        capability: "content:read",
        method: "GET",
        path: `${content}/proposals?delegation_id=${delegation}`,
      },
      { capability: "content:write", method: "PUT", path: content, body: {} },
      { capability: "draft:write", method: "PUT", path: "/drafts", body: {} },
      {
        capability: "draft:write",
        method: "POST",
        path: "/drafts/discard",
        body: {},
      },
      {
        capability: "content:propose",
        method: "POST",
        path: `${content}/proposals`,
        body: {},
      },
      {
        capability: "workflow:publish",
        method: "POST",
        path: `${content}/transitions/published`,
        body: publish,
      },
      {
        capability: "workflow:locale",
        method: "POST",
        path: `${content}/transitions/published`,
        body: { ...publish, locale: "en" },
      },
      {
        capability: "workflow:unpublish",
        method: "POST",
        path: `${content}/transitions/draft`,
        body: {
          kind: "unpublish",
          expected_published_version_id: group.current_version_id,
          expected_workflow_revision: group.revision,
          delegation_id: delegation,
        },
      },
      {
        capability: "workflow:release",
        method: "POST",
        path: "/releases/commit",
        body: {
          changes: [{
            instance_id: instances.en,
            kind: "publish",
            expected_current_version_id: group.current_version_id,
            expected_workflow_revision: group.revision,
          }],
          delegation_id: delegation,
        },
      },
      { capability: "media:write", method: "POST", path: "/media", body: {} },
      // PAPI-033: a moderation command needs its capability like any other route.
      {
        capability: "content:delete",
        method: "POST",
        path: `${content}/restore`,
        body: {},
      },
      {
        capability: "media:write",
        method: "POST",
        path: `/media/${crypto.randomUUID()}/remove`,
        body: {},
      },
    ];
    let n = 0;
    const call = (row: Needing) =>
      w.plugin.api(id, row.path, {
        method: row.method,
        body: row.body,
        key: row.body === undefined ? undefined : `cap-${++n}`,
      });
    const grant = (capabilities: string[]) =>
      w.admin("POST", `/api/plugins/${id}/grant`, {
        capabilities,
        model_ids: [w.modelId],
      });
    for (const row of table) {
      const label = `${row.method} ${row.path} without ${row.capability}`;
      equal(
        (await grant(CAPABILITIES.filter((c) => c !== row.capability))).status,
        200,
      );
      deepEqual(
        await outcome(await call(row)),
        [403, "capability_refused"],
        label,
      );
      // With the whole grant the same request is judged on its merits instead.
      await grant([...CAPABILITIES]);
      const whole = await call(row);
      const code = (await whole.json()).outcome?.code;
      ok(code !== "capability_refused", `${label}: the whole grant passes`);
    }
  }));

/** Every answer an administrator or a script can read about the installation, as text. */
async function everyAnswer(w: PluginWorld, id: string): Promise<string> {
  const answers = [
    await w.admin("GET", "/api/plugins"),
    await w.admin("GET", `/api/plugins/${id}`),
    await w.admin("POST", `/api/plugins/${id}/upgrade-preview`, {}),
    await w.admin("GET", `/admin/settings/plugins/${id}`),
    await w.admin("GET", "/admin/settings/plugins"),
  ];
  const texts: string[] = [];
  for (const res of answers) {
    equal(res.status, 200, res.url);
    texts.push(await res.text());
  }
  const call = await manager(w, ["content:read", "plugins:use"]);
  const listed = await call("GET", "/plugins");
  equal(listed.status, 200);
  texts.push(JSON.stringify(listed.body));
  return texts.join("\n");
}

Deno.test("the token is never shown again: not in admin or management answers, logs, audit entries, errors or URLs (PLG-015, PLG-016)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const first = w.plugin.installations.get(id)!.token;
    const { instances } = await w.entry({ en: { title: "Secret" } });
    await w.delegate(id, instances.en);
    // Requests carrying the token where it does not belong: as a code, in a body, as a key.
    const errors = [
      await w.plugin.api(id, "/launch/exchange", { body: { code: first } }),
      await w.plugin.api(id, `/content/${instances.en}/transitions/published`, {
        body: { kind: "publish", token: first },
        key: first,
      }),
    ];
    const rotated = await w.admin("POST", `/api/plugins/${id}/rotate`, {
      code: await w.plugin.issueCode(id),
    });
    const second = w.plugin.installations.get(id)!.token;
    const launch = await w.admin("POST", `/api/plugins/${id}/launch`, {
      kind: "manage",
      view: "calendar",
    });
    const texts = [
      await rotated.text(),
      await launch.text(),
      ...await Promise.all(errors.map((r) => r.text())),
      await everyAnswer(w, id),
      JSON.stringify(w.logs),
      JSON.stringify(
        await w.services.db.selectFrom("audit_entries").selectAll().execute(),
      ),
      JSON.stringify(
        await w.services.db.selectFrom("plugin_installations").selectAll()
          .execute(),
      ),
    ];
    ok(texts.join("").length > 1000, "there were answers to search");
    for (const text of texts) {
      ok(!text.includes(first), "the first token appears nowhere");
      ok(!text.includes(second), "the rotated token appears nowhere");
      ok(!text.includes("svp_"), "no token-shaped value either");
    }
  }));

Deno.test("a token reaches only its installation's site: another site's content is content_not_found, never data (PLG-017)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const other = await siteWithPosts(w.services, "other.test", "b@other.test");
    const theirs = await saveTestEntry({
      db: w.services.db,
      clock: w.clock,
      ...other,
      userId: other.adminId,
    }, { en: { title: "Not yours" } });
    const token = w.plugin.installations.get(id)!.token;
    for (const host of ["plugins.test", "other.test"]) {
      const headers = { host, authorization: `Bearer ${token}` };
      const read = await w.app.request(
        `http://${host}/api/plugin/v1/content/${theirs.instances.en}`,
        { headers },
      );
      deepEqual(await outcome(read), [404, "content_not_found"], host);
      const list = await w.app.request(
        `http://${host}/api/plugin/v1/content`,
        { headers },
      );
      const listed = await list.text();
      ok(!listed.includes(theirs.instances.en), host);
      ok(!listed.includes("Not yours"), host);
      const context = await w.app.request(
        `http://${host}/api/plugin/v1/context`,
        { headers },
      );
      equal((await context.json()).data.site.id, w.siteId, "the token's site");
    }
  }));

Deno.test("enable is an administrator's act written to the audit ledger (PLG-023)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    await w.admin("POST", `/api/plugins/${id}/disable`, {});
    const audits = () =>
      w.services.db.selectFrom("audit_entries").selectAll()
        .where("action", "=", "plugin.enable").execute();
    equal((await audits()).length, 0);
    const enabled = await w.admin("POST", `/api/plugins/${id}/enable`, {});
    equal(enabled.status, 200);
    const [entry] = await audits();
    ok(entry, "one plugin.enable entry");
    const parse = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : v);
    equal(parse(entry.target).installation_id, id);
    deepEqual(parse(entry.actor), {
      kind: "person",
      email: "admin@plugins.test",
      person_id: w.adminId,
    });
    // Enabling again (already active) is refused and audits nothing.
    const again = await w.admin("POST", `/api/plugins/${id}/enable`, {});
    equal(again.status, 409);
    equal((await audits()).length, 1);
  }));
