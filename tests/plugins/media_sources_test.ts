// Plugin media sources through the Management API with a real plugin server: sources listed with
// their modes, pages of at most 24 asked of the plugin (which exchanges its code first), imports
// that copy through the upload checks or reference without fetching, and the refusals by name
// (MED-035 to MED-040).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { personActor } from "../../core/access/actor.ts";
import { insertCredential } from "../../core/credentials/credential_store.ts";
import { publishEntry } from "../../core/entries/mod.ts";
import { createModel } from "../../core/models/store.ts";
import { saveTestEntry } from "../support/entries.ts";
import { STOCK_CDN } from "../../plugins/testing/plugin.ts";
import { type PluginWorld, SITE_HOST, withPluginWorld } from "./world.ts";

type Json = Record<string, unknown>;

async function api(w: PluginWorld) {
  const { secret } = await insertCredential(w.services.db, w.clock, {
    siteId: w.siteId,
    creatorId: w.adminId,
    name: "media agent",
    scopes: ["media:write", "content:read"],
    models: null,
  });
  return async (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = {
      host: SITE_HOST,
      authorization: `Bearer ${secret}`,
    };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (method === "POST") headers["idempotency-key"] = crypto.randomUUID();
    const res = await w.app.request(
      `http://${SITE_HOST}/api/manage/v1${path}`,
      {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      },
    );
    return { status: res.status, body: await res.json() as Json };
  };
}

async function withSources(fn: (w: PluginWorld, id: string) => Promise<void>) {
  await withPluginWorld(async (w) => {
    w.plugin.behaviour.mediaSources = true;
    w.plugin.behaviour.capabilities = [
      ...w.plugin.behaviour.capabilities,
      "media:source",
    ];
    await fn(w, await w.install());
  });
}

Deno.test("media sources are listed with their modes, and their items come a page at a time from the plugin after it exchanged the code (MED-035, MED-036)", () =>
  withSources(async (w, id) => {
    const call = await api(w);
    const sources = await call("GET", "/media/sources");
    equal(sources.status, 200, JSON.stringify(sources.body));
    deepEqual(
      (sources.body.data as Json[]).map((s) => [s.source_id, s.modes]),
      [["stock", ["copy", "reference"]], ["uploads", ["copy"]]],
    );
    const base = `/media/sources/${id}/stock/items`;
    const first = await call("GET", base);
    equal(first.status, 200, JSON.stringify(first.body));
    const items = first.body.data as Json[];
    equal(items.length, 1);
    equal(items[0].id, "sunrise");
    equal(items[0].file_name, "sunrise.png");
    deepEqual(items[0].modes, ["copy", "reference"]);
    deepEqual(items[0].attribution, {
      plugin_id: "com.example.publisher",
      source_id: "stock",
      alt: "The sun over the sea",
    });
    equal(first.body.next_cursor, "1");
    const second = await call("GET", `${base}?cursor=1`);
    equal((second.body.data as Json[])[0].id, "script");
    const found = await call("GET", `${base}?q=gone`);
    deepEqual((found.body.data as Json[]).map((i) => i.id), ["gone"]);
    // The plugin learned what was asked only through the exchange.
    const exchanged = w.plugin.exchanges.at(-1)!.body as {
      data: { media_source: Json };
    };
    deepEqual(exchanged.data.media_source, {
      id: "stock",
      q: "gone",
      cursor: null,
      item_id: null,
    });
  }));

Deno.test("a copy import downloads the item and checks it like an upload; a reference import stores only its delivery URL and identity (MED-037, MED-038, MED-039)", () =>
  withSources(async (w, id) => {
    const call = await api(w);
    const path = `/media/sources/${id}/stock/import`;
    const noMode = await call("POST", path, { item_id: "sunrise" });
    equal(noMode.status, 400, "the mode is never inferred");
    const copyOnly = await call(
      "POST",
      `/media/sources/${id}/uploads/import`,
      { item_id: "sunrise", mode: "reference" },
    );
    equal(copyOnly.status, 422);
    equal(
      (copyOnly.body.error as Json).code,
      "media_source_mode_unsupported",
    );

    const copied = await call("POST", path, {
      item_id: "sunrise",
      mode: "copy",
    });
    equal(copied.status, 201, JSON.stringify(copied.body));
    equal(copied.body.kind, "image");
    equal(copied.body.external, false);
    equal(
      copied.body.width,
      480,
      "from the file's header, not the plugin's claim",
    );
    deepEqual(copied.body.alt_texts, { en: "The sun over the sea" });
    match(String(copied.body.url), /\/media\//);
    equal((copied.body.attribution as Json).item_id, "sunrise");
    const again = await call("POST", path, {
      item_id: "sunrise",
      mode: "copy",
    });
    equal(again.status, 409);
    equal((again.body.error as Json).code, "media_duplicate");

    const program = await call("POST", path, {
      item_id: "script",
      mode: "copy",
    });
    equal(program.status, 422);
    equal((program.body.error as Json).code, "executable_file");
    // A header over the pixel ceiling is refused like an upload's (issue 39 item 3).
    const huge = await call("POST", path, { item_id: "huge", mode: "copy" });
    equal(huge.status, 415);
    equal((huge.body.error as Json).code, "unsupported_media_type");
    equal((huge.body.error as Json).reason, "too_many_pixels");

    const gone = await call("POST", path, { item_id: "gone", mode: "copy" });
    equal(gone.status, 502);
    equal((gone.body.error as Json).code, "media_source_file_unreachable");

    const referenced = await call("POST", path, {
      item_id: "sunrise",
      mode: "reference",
    });
    equal(referenced.status, 201, JSON.stringify(referenced.body));
    equal(referenced.body.external, true); // MED-003: a reference import is external
    equal(referenced.body.url, `${STOCK_CDN}/sunrise.png`);
    deepEqual(referenced.body.external_source, {
      installation_id: id,
      plugin_id: "com.example.publisher",
      source_id: "stock",
      item_id: "sunrise",
    });
    const twice = await call("POST", path, {
      item_id: "sunrise",
      mode: "reference",
    });
    equal(twice.status, 409);
    equal((twice.body.error as Json).code, "media_duplicate");
    const reused = await call("POST", path, {
      item_id: "sunrise",
      mode: "reference",
      on_duplicate: "use_existing",
    });
    equal(reused.status, 200);
    equal(reused.body.id, referenced.body.id);

    // Removing the reference removes the row only: nothing was stored for it.
    const removed = await call("POST", `/media/${referenced.body.id}/remove`);
    equal(removed.status, 200, JSON.stringify(removed.body));
    equal(removed.body.storage_cleanup, "complete");
    const again2 = await call("POST", path, {
      item_id: "sunrise",
      mode: "reference",
    });
    equal(again2.status, 201, "the item may be referenced again once removed");
    const rows = await w.services.db.selectFrom("media_files")
      .select(["id", "external"]).where("site_id", "=", w.siteId).execute();
    equal(rows.filter((r) => r.external).length, 1);
    equal(rows.length, 2, "the copy and the reference; nothing refused stayed");
  }));

Deno.test("a disabled plugin's sources are gone: listed no more, and their pages and imports answer 404 media_source_unavailable (MED-040)", () =>
  withSources(async (w, id) => {
    const call = await api(w);
    await w.services.db.updateTable("plugin_installations")
      .set({ state: "disabled" }).where("id", "=", id).execute();
    deepEqual((await call("GET", "/media/sources")).body.data, []);
    const page = await call("GET", `/media/sources/${id}/stock/items`);
    equal(page.status, 404);
    equal((page.body.error as Json).code, "media_source_unavailable");
    const imported = await call("POST", `/media/sources/${id}/stock/import`, {
      item_id: "sunrise",
      mode: "copy",
    });
    equal(imported.status, 404);
    equal((imported.body.error as Json).code, "media_source_unavailable");
  }));

Deno.test("a copy import fetches the file once and stores a site-owned copy; a reference import fetches nothing, and a published item serves its delivery_url (PEXT-026)", () =>
  withSources(async (w, id) => {
    const call = await api(w);
    const path = `/media/sources/${id}/stock/import`;
    const copied = await call("POST", path, {
      item_id: "sunrise",
      mode: "copy",
    });
    equal(copied.status, 201, JSON.stringify(copied.body));
    deepEqual(w.plugin.fileRequests, ["/files/sunrise.png"]);
    const copyRow = await w.services.db.selectFrom("media_files")
      .select(["external", "storage_key"]).where(
        "id",
        "=",
        String(copied.body.id),
      )
      .executeTakeFirstOrThrow();
    equal(copyRow.external, false);
    ok(
      copyRow.storage_key !== "",
      "the copy's bytes are in this site's storage",
    );

    const referenced = await call("POST", path, {
      item_id: "sunrise",
      mode: "reference",
    });
    equal(referenced.status, 201, JSON.stringify(referenced.body));
    deepEqual(
      w.plugin.fileRequests,
      ["/files/sunrise.png"],
      "the service never fetched the reference",
    );

    const cards = await createModel(
      { db: w.services.db, clock: w.clock, siteId: w.siteId },
      {
        model: { name: "Cards", slug: "cards", enableI18n: true },
        fields: [
          { key: "title", label: "Title", type: "text", localized: true },
          { key: "cover", label: "Cover", type: "media" },
        ],
      },
    );
    if (!cards.ok) throw new Error(JSON.stringify(cards));
    const entry = await saveTestEntry({
      db: w.services.db,
      clock: w.clock,
      siteId: w.siteId,
      userId: w.adminId,
      modelId: cards.model_id,
    }, { en: { title: "Dawn", cover: referenced.body.id } });
    const group = await w.services.db.selectFrom("entry_groups").selectAll()
      .where("id", "=", entry.groupId).executeTakeFirstOrThrow();
    const published = await publishEntry({
      db: w.services.db,
      clock: w.clock,
      siteId: w.siteId,
      actor: personActor(w.adminId),
    }, {
      group_id: entry.groupId,
      expected_current_version_id: group.current_version_id,
      expected_workflow_revision: group.revision,
    });
    ok(published.ok, JSON.stringify(published));
    const slug = (await w.services.db.selectFrom("entries").select("slug")
      .where("id", "=", entry.instances.en).executeTakeFirstOrThrow()).slug;
    const res = await w.app.request(`http://${SITE_HOST}/v1/cards/${slug}`, {
      headers: { host: SITE_HOST },
    });
    equal(res.status, 200, await res.clone().text());
    const item = (await res.json()).data;
    equal(item.media.cover.id, referenced.body.id);
    equal(item.media.cover.url, `${STOCK_CDN}/sunrise.png`);
  }));
