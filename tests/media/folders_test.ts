// Media folders: counts, depth-first tree, names unique ignoring case, depth 5, 500 per site, cycles, pins, removal unfiling files.
import { deepEqual, equal } from "node:assert/strict";
import { refusal } from "../manage/helpers.ts";
import { type MediaFixture, png, withMediaApp } from "./support.ts";

function create(
  t: MediaFixture,
  name: string,
  parent_id: string | null = null,
) {
  return t.call("POST", "/media/folders", {
    secret: t.media,
    key: crypto.randomUUID(),
    body: { name, parent_id },
  });
}

async function made(
  t: MediaFixture,
  name: string,
  parent: string | null = null,
) {
  const res = await create(t, name, parent);
  equal(res.status, 201, await res.clone().text());
  return await res.json();
}

function tree(t: MediaFixture) {
  return t.call("GET", "/media/folders", { secret: t.media }).then((r) =>
    r.json()
  );
}

Deno.test("media folders: tree depth first with own and subtree counts, Unfiled, total and limits (MED-027, MED-030)", () =>
  withMediaApp(async (t) => {
    const b = await made(t, "Beta");
    const a = await made(t, "alpha");
    const a1 = await made(t, "Inner", a.id);
    const file = await (await t.send("POST", "/media", {
      file: { bytes: await png(1), name: "a.png" },
      fields: { folder_id: a1.id },
    })).json();
    await t.send("POST", "/media", {
      file: { bytes: await png(2), name: "b.png" },
    });
    const answer = await tree(t);
    deepEqual(
      answer.data.map((
        f: Record<string, unknown>,
      ) => [
        f.name,
        f.depth,
        f.media_count,
        f.subtree_folder_count,
        f.subtree_media_count,
      ]),
      [["alpha", 1, 0, 1, 1], ["Inner", 2, 1, 0, 0 + 1], ["Beta", 1, 0, 0, 0]],
    );
    equal(answer.unfiled, 1);
    equal(answer.total, 3);
    deepEqual(answer.limits, {
      max_depth: 5,
      max_folders: 500,
      name_min: 1,
      name_max: 80,
    });
    equal(file.folder_id, a1.id);
    equal(b.revision, 1);
  }));

Deno.test("media folders: names 1 to 80 characters, unique under a parent ignoring case (MED-028)", () =>
  withMediaApp(async (t) => {
    const photos = await made(t, "Photos");
    const dup = await create(t, "photos");
    equal(dup.status, 409);
    const body = await refusal(dup);
    equal(body.code, "media_folder_exists");
    equal((body.folder as { id: string }).id, photos.id);
    await made(t, "photos", photos.id); // another parent is fine
    await made(t, "x".repeat(80));
    equal(
      (await refusal(await create(t, "y".repeat(81)))).code,
      "invalid_request",
    );
    equal((await refusal(await create(t, "   "))).code, "invalid_request");
    equal(
      (await refusal(await create(t, "Child", crypto.randomUUID()))).code,
      "media_folder_not_found",
    );
  }));

Deno.test("media folders: depth 5 is the last accepted, the 6th level is media_folder_too_deep; moving a subtree counts its height (MED-029)", () =>
  withMediaApp(async (t) => {
    let parent: string | null = null;
    const chain: string[] = [];
    for (let level = 1; level <= 5; level++) {
      const folder = await made(t, `L${level}`, parent);
      equal(folder.depth, level);
      chain.push(folder.id);
      parent = folder.id;
    }
    const deep = await create(t, "L6", parent);
    equal(deep.status, 422);
    equal((await refusal(deep)).code, "media_folder_too_deep");
    const other = await made(t, "Other");
    await made(t, "Kid", other.id);
    const move = await t.call("PUT", `/media/folders/${other.id}`, {
      secret: t.media,
      key: "m",
      body: { expected_revision: 1, parent_id: chain[3] },
    });
    equal((await refusal(move)).code, "media_folder_too_deep");
    const fits = await t.call("PUT", `/media/folders/${other.id}`, {
      secret: t.media,
      key: "m2",
      body: { expected_revision: 1, parent_id: chain[2] },
    });
    equal(fits.status, 200);
    equal((await fits.json()).depth, 4);
  }));

Deno.test("media folders: 500 per site is the last accepted, the 501st is media_folder_limit (MED-029)", () =>
  withMediaApp(async (t) => {
    const now = t.clock.now();
    await t.services.db.insertInto("media_folders").values(
      Array.from({ length: 499 }, (_, i) => ({
        id: crypto.randomUUID(),
        site_id: t.siteId,
        parent_id: null,
        name: `Folder ${i}`,
        revision: 1,
        created_at: now,
        updated_at: now,
      })),
    ).execute();
    await made(t, "The 500th");
    const over = await create(t, "The 501st");
    equal(over.status, 422);
    equal((await refusal(over)).code, "media_folder_limit");
  }));

Deno.test("media folders: rename and move pinned to revision; cycles refused; stale pins answer the current folder (MED-031, MED-032)", () =>
  withMediaApp(async (t) => {
    const top = await made(t, "Top");
    const child = await made(t, "Child", top.id);
    const grandchild = await made(t, "Grand", child.id);
    const update = (id: string, body: unknown) =>
      t.call("PUT", `/media/folders/${id}`, {
        secret: t.media,
        key: crypto.randomUUID(),
        body,
      });
    const cycle = await update(top.id, {
      expected_revision: 1,
      parent_id: grandchild.id,
    });
    equal(cycle.status, 422);
    equal((await refusal(cycle)).code, "media_folder_cycle");
    equal(
      (await refusal(
        await update(top.id, { expected_revision: 1, parent_id: top.id }),
      )).code,
      "media_folder_cycle",
    );
    const renamed =
      await (await update(top.id, { expected_revision: 1, name: "Renamed" }))
        .json();
    equal(renamed.revision, 2);
    const stale = await update(top.id, { expected_revision: 1, name: "Again" });
    equal(stale.status, 409);
    const body = await refusal(stale);
    equal(body.code, "media_folder_changed");
    equal((body.folder as { name: string }).name, "Renamed");
    equal(
      (await refusal(await update(top.id, { expected_revision: 2 }))).code,
      "invalid_request",
    );
    equal(
      (await refusal(
        await update(crypto.randomUUID(), { expected_revision: 1, name: "x" }),
      )).code,
      "media_folder_not_found",
    );
    const toTop = await (await update(grandchild.id, {
      expected_revision: 1,
      parent_id: null,
    })).json();
    equal(toTop.depth, 1);
  }));

Deno.test("media folders: removal pins revision and subtree counts, deletes folders below, and unfiles their files (MED-032, MED-033)", () =>
  withMediaApp(async (t) => {
    const top = await made(t, "Top");
    const child = await made(t, "Child", top.id);
    const file = await (await t.send("POST", "/media", {
      file: { bytes: await png(3), name: "a.png" },
      fields: { folder_id: child.id },
    })).json();
    const remove = (body: unknown) =>
      t.call("POST", `/media/folders/${top.id}/remove`, {
        secret: t.media,
        key: crypto.randomUUID(),
        body,
      });
    const stale = await remove({
      expected_revision: 1,
      expected_folders: 1,
      expected_media: 0,
    });
    equal(stale.status, 409);
    const body = await refusal(stale);
    equal(body.code, "media_folder_changed");
    equal(
      (body.folder as { subtree_media_count: number }).subtree_media_count,
      1,
    );
    const done = await remove({
      expected_revision: 1,
      expected_folders: 1,
      expected_media: 1,
    });
    deepEqual(await done.json(), {
      id: top.id,
      removed_folders: 2,
      unfiled_media: 1,
    });
    const after = await tree(t);
    deepEqual(after.data, []);
    equal(after.unfiled, 1);
    const read =
      await (await t.call("GET", `/media/${file.id}`, { secret: t.media }))
        .json();
    equal(read.folder_id, null);
    equal((await t.keys()).length, 1);
  }));
