import { deepEqual, equal, ok } from "node:assert/strict";
import { insertCredential } from "../credentials/credential_store.ts";
import { setModelFolder } from "./model_folder.ts";
import { removeModel } from "./remove_model.ts";
import {
  applyModelDefinition,
  createModel,
  getModel,
  listModels,
} from "./store.ts";
import {
  create,
  noContent,
  posts,
  withDb,
  withEntries,
} from "./test_support.ts";
import { toWireModel } from "./wire.ts";

Deno.test("setModelFolder() takes 1 to 40 characters after trimming, groups by case, and keeps the revision (MOD-006, MOD-010)", () =>
  withDb(async (ctx, _other, clock) => {
    const a = await create(ctx, posts());
    const b = await create(
      ctx,
      posts(undefined, { name: "Pages", slug: "pages" }),
    );
    clock.advance(5000);
    const forty = "x".repeat(40);
    deepEqual(await setModelFolder(ctx, a.id, `  ${forty}  `), {
      ok: true,
      model_id: a.id,
      slug: "posts",
      folder: forty,
    });
    const refused = await setModelFolder(ctx, a.id, "y".repeat(41));
    equal(refused.ok ? "" : refused.code, "invalid_request");
    equal((await setModelFolder(ctx, a.id, "   ")).ok, false);
    ok((await setModelFolder(ctx, a.id, "Blog")).ok);
    deepEqual(await setModelFolder(ctx, b.id, "blog "), {
      ok: true,
      model_id: b.id,
      slug: "pages",
      folder: "Blog",
    });
    const read = await getModel(ctx, a.id);
    ok(read.ok);
    equal(read.model.revision, 1);
    equal(read.model.updatedAt.toISOString(), a.updatedAt.toISOString());
    deepEqual(await setModelFolder(ctx, a.id, null), {
      ok: true,
      model_id: a.id,
      slug: "posts",
      folder: null,
    });
  }));

Deno.test("listModels() lists the site's models by folder ignoring case, unfiled last, and never another site's", () =>
  withDb(async (ctx, other) => {
    const names = ["Zeta", "Alpha", "Mid"];
    const models = [];
    for (const name of names) {
      models.push(
        await create(ctx, posts(undefined, { name, slug: name.toLowerCase() })),
      );
    }
    await create(other, posts());
    await setModelFolder(ctx, models[0].id, "b");
    await setModelFolder(ctx, models[2].id, "A");
    deepEqual((await listModels(ctx)).map((m) => m.name), [
      "Mid",
      "Zeta",
      "Alpha",
    ]);
    equal((await getModel(other, models[0].id)).ok, false);
  }));

Deno.test("removeModel() needs the id confirmed, the current revision and no entries; the slug is free afterwards (MOD-012)", () =>
  withDb(async (ctx) => {
    const model = await create(ctx, posts());
    const linking = await create(
      ctx,
      posts([{
        key: "post",
        label: "Post",
        type: "relation",
        config: { targets: [model.id], cardinality: "many-to-one" },
      }], { name: "Links", slug: "links" }),
    );
    const options = { baseRevision: 1, confirm: model.id, facts: noContent };
    equal(
      (await removeModel(ctx, model.id, { ...options, confirm: linking.id }))
        .ok,
      false,
    );
    equal(
      (await removeModel(ctx, model.id, { ...options, baseRevision: 2 }) as {
        code: string;
      }).code,
      "model_changed",
    );
    deepEqual(
      await removeModel(ctx, model.id, { ...options, facts: withEntries(1) }),
      { ok: false, code: "model_not_empty", affected_count: 1 },
    );
    deepEqual(await removeModel(ctx, model.id, options), {
      ok: true,
      model_id: model.id,
      slug: "posts",
      relation_dependents: [{
        model_id: linking.id,
        slug: "links",
        field: "post",
      }],
    });
    equal((await getModel(ctx, model.id)).ok, false);
    ok((await createModel(ctx, posts())).ok);
  }));

Deno.test("removeModel() is refused while a role grants on the model (stale_role_grant) or a credential or site token is limited to it (stale_token_scope); nothing is removed (MOD-017)", () =>
  withDb(async (ctx) => {
    const model = await create(ctx, posts());
    const options = { baseRevision: 1, confirm: model.id, facts: noContent };
    const roleId = crypto.randomUUID();
    await ctx.db.insertInto("roles").values({
      id: roleId,
      site_id: ctx.siteId,
      name: "Post editors",
      permissions: JSON.stringify({
        models: { [model.id]: ["read", "update"], "*": ["read"] },
        system: [],
      }),
      created_at: ctx.clock.now(),
    }).execute();
    deepEqual(await removeModel(ctx, model.id, options), {
      ok: false,
      code: "stale_role_grant",
      roles: [{ id: roleId, name: "Post editors" }],
    });
    // A wildcard grant names no model.
    await ctx.db.updateTable("roles").set({
      permissions: JSON.stringify({ models: { "*": ["read"] }, system: [] }),
    }).where("id", "=", roleId).execute();
    const userId = crypto.randomUUID();
    await ctx.db.insertInto("users").values({
      id: userId,
      email: "owner@one.test",
      display_name: "Owner",
      password_hash: "!",
      status: "active",
      created_at: ctx.clock.now(),
    }).execute();
    const { credential } = await insertCredential(ctx.db, ctx.clock, {
      siteId: ctx.siteId,
      creatorId: userId,
      name: "Importer",
      scopes: ["content:read"],
      models: [model.id],
    });
    const tokenId = crypto.randomUUID();
    await ctx.db.insertInto("site_api_tokens").values({
      id: tokenId,
      site_id: ctx.siteId,
      name: "Front end",
      model_ids: JSON.stringify([model.id]),
      digest: "0".repeat(64),
      created_at: ctx.clock.now(),
      expires_at: null,
      revoked_at: null,
    }).execute();
    deepEqual(await removeModel(ctx, model.id, options), {
      ok: false,
      code: "stale_token_scope",
      credentials: [{ id: credential.id, name: "Importer" }],
      site_tokens: [{ id: tokenId, name: "Front end" }],
    });
    equal((await getModel(ctx, model.id)).ok, true, "nothing was removed");
    // Revoked credentials and tokens name nothing.
    await ctx.db.updateTable("management_credentials")
      .set({ revoked_at: ctx.clock.now() }).where("id", "=", credential.id)
      .execute();
    await ctx.db.updateTable("site_api_tokens")
      .set({ revoked_at: ctx.clock.now() }).where("id", "=", tokenId).execute();
    equal((await removeModel(ctx, model.id, options)).ok, true);
  }));

Deno.test("toWireModel() answers config, validation, derived and ui as JSON text that applies back unchanged (MOD-003, MOD-007)", () =>
  withDb(async (ctx) => {
    const model = await create(
      ctx,
      posts([
        {
          key: "title",
          label: "Title",
          type: "text",
          validation: { maxLength: 80 },
          ui: { width: "half" },
        },
        {
          key: "seo",
          label: "SEO",
          type: "component",
          config: { fields: [{ key: "t", label: "T", type: "text" }] },
        },
      ]),
    );
    const wire = toWireModel(model);
    equal(wire.revision, 1);
    equal(wire.updated_at, "2026-01-01T00:00:00.000Z");
    equal(wire.definition.fields[0].validation, '{"maxLength":80}');
    equal(wire.definition.fields[0].ui, '{"width":"half"}');
    equal(wire.definition.fields[0].derived, null);
    equal(typeof wire.definition.fields[1].config, "string");
    const again = await applyModelDefinition(ctx, model.id, wire.definition, {
      baseRevision: 1,
      facts: noContent,
    });
    ok(again.ok);
    equal(again.changed, false);
  }));
