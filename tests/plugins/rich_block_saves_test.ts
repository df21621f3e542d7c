// Saving rich text that holds plugin blocks (spec 1 part 7, inventory PEXT-027): a block must be
// registered by an active plugin, at a version it declares, with values its declaration accepts;
// a block the language already held is not checked again once its plugin is disabled.
import { deepEqual, equal } from "node:assert/strict";
import { createModel } from "../../core/models/store.ts";
import { saveTestEntry } from "../support/entries.ts";
import { manager, type PluginWorld, withPluginWorld } from "./world.ts";

type Json = Record<string, unknown>;

const PLUGIN = "com.example.publisher";

function block(
  values: Json,
  options: { type?: string; version?: number; plugin?: string } = {},
): string {
  return `<figure data-block="${options.plugin ?? PLUGIN}" data-type="${
    options.type ?? "pull-quote"
  }" data-version="${options.version ?? 2}" data-values='${
    JSON.stringify(values)
  }'></figure>`;
}

async function articlesModel(w: PluginWorld): Promise<string> {
  const made = await createModel(
    { db: w.services.db, clock: w.clock, siteId: w.siteId },
    {
      model: { name: "Articles", slug: "articles" },
      fields: [
        { key: "title", label: "Title", type: "text" },
        { key: "body", label: "Body", type: "rich_text" },
      ],
    },
  );
  if (!made.ok) throw new Error(`Cannot create the model: ${made.code}`);
  return made.model_id;
}

Deno.test("a save refuses an unregistered plugin block, a newer version and refused values, by name at the field's path; a held block survives its plugin's disable (PEXT-027)", () =>
  withPluginWorld(async (w) => {
    const articles = await articlesModel(w);
    w.plugin.behaviour.richBlocks = true;
    const installation = await w.install();
    const call = await manager(w, ["content:read", "content:write"]);
    const quote = block({ text: "Less, but better", by: "Dieter Rams" });

    const created = await call("POST", "/entries", {
      model_id: articles,
      locale: "en",
      slug: "quoted",
      fields: { title: "Quoted", body: `<p>Intro</p>${quote}` },
    });
    equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id as string;
    let version = (created.body.locales as Record<string, Json>).en
      .current_version_id as string;

    const refusedWith = async (body: string) => {
      const res = await call("PUT", `/entries/${id}`, {
        locale: "en",
        expected_current_version_id: version,
        fields: { title: "Quoted", body },
      });
      equal(res.status, 422, JSON.stringify(res.body));
      const error = res.body.error as Json;
      equal(error.code, "field_validation_failed");
      const [first] = error.errors as Json[];
      equal(first.path, "body");
      return first.code;
    };
    equal(
      await refusedWith(block({ text: "Q", by: "A" }, { type: "banner" })),
      "rich_block_unregistered",
    );
    equal(
      await refusedWith(block({ text: "Q", by: "A" }, { plugin: "com.other" })),
      "rich_block_unregistered",
    );
    equal(
      await refusedWith(block({ text: "Q", by: "A" }, { version: 3 })),
      "rich_block_version_unknown",
    );
    // The declaration needs `text`, and `by` or `sources` (its one_of_required rule).
    equal(await refusedWith(block({ text: "Q" })), "rich_block_values_invalid");
    // Nothing of the refused saves was written.
    const read = await call("GET", `/entries/${id}`);
    equal(
      (read.body.locales as Record<string, Json>).en.current_version_id,
      version,
    );

    // Disabled: the held block stays savable with the rest of the text; a new one is refused.
    equal(
      (await w.admin("POST", `/api/plugins/${installation}/disable`, {}))
        .status,
      200,
    );
    const kept = await call("PUT", `/entries/${id}`, {
      locale: "en",
      expected_current_version_id: version,
      fields: { title: "Quoted again", body: `<p>Intro, edited</p>${quote}` },
    });
    equal(kept.status, 200, JSON.stringify(kept.body));
    version = (kept.body.locales as Record<string, Json>).en
      .current_version_id as string;
    deepEqual(
      await refusedWith(
        `<p>Intro, edited</p>${quote}${block({ text: "New", by: "B" })}`,
      ),
      "rich_block_unregistered",
    );
  }));

Deno.test("PUT /content answers a refused plugin block with its own outcome code, 422 and terminal, and saves nothing (PEXT-027)", () =>
  withPluginWorld(async (w) => {
    const articles = await articlesModel(w);
    w.plugin.behaviour.richBlocks = true;
    const installation = await w.install({ model_ids: [articles] });
    const { groupId, instances } = await saveTestEntry({
      db: w.services.db,
      clock: w.clock,
      siteId: w.siteId,
      userId: w.adminId,
      modelId: articles,
    }, { en: { title: "Held", body: "<p>Text</p>" } });
    const delegation = await w.delegate(installation, instances.en);
    const read = await w.plugin.api(installation, `/content/${instances.en}`);
    const current = ((await read.json()) as { data: Json }).data
      .current_version_id;
    const versions = async () =>
      (await w.services.db.selectFrom("entry_versions").select("id")
        .where("group_id", "=", groupId).execute()).length;
    const before = await versions();
    const res = await w.plugin.api(installation, `/content/${instances.en}`, {
      method: "PUT",
      key: "rich-1",
      body: {
        delegation_id: delegation,
        expected_current_version_id: current,
        fields: { title: "Held", body: block({ text: "Q" }, { version: 9 }) },
      },
    });
    const answer = await res.json() as { outcome: Json };
    deepEqual(
      [res.status, answer.outcome.code, answer.outcome.retry],
      [422, "rich_block_version_unknown", false],
    );
    equal(await versions(), before);
  }));
