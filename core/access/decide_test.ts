import { deepEqual, equal, throws } from "node:assert/strict";
import {
  allowedLanguages,
  decide,
  readableFields,
  readReach,
  writableFields,
} from "./decide.ts";
import { credentialAuthority, ME, OTHER, personAuthority } from "./_testing.ts";
import type { Permissions } from "./permissions.ts";

const editor: Permissions = {
  models: { "*": ["read", "create", "update"], article: ["publish"] },
  system: ["media:upload"],
};

Deno.test("decide() allows a held model permission and refuses a missing one with missing_permission", () => {
  const me = personAuthority(editor);
  deepEqual(decide(me, { action: "update", model: "page" }), { ok: true });
  deepEqual(decide(me, { action: "publish", model: "article" }), { ok: true });
  deepEqual(decide(me, { action: "publish", model: "page" }), {
    ok: false,
    code: "missing_permission",
    missing: ["publish"],
  });
  deepEqual(decide(me, { action: "media:upload" }), { ok: true });
  deepEqual(decide(me, { action: "site:settings" }), {
    ok: false,
    code: "missing_permission",
    missing: ["site:settings"],
  });
});

Deno.test("decide() compares update:own and read:own with the item owner (MCR-027, LAU-027)", () => {
  const me = personAuthority({
    models: { article: ["read:own", "update:own"] },
    system: [],
  });
  deepEqual(decide(me, { action: "update", model: "article", owner: ME }), {
    ok: true,
  });
  equal(
    decide(me, { action: "update", model: "article", owner: OTHER }).ok,
    false,
  );
  equal(
    decide(me, { action: "update", model: "article", owner: null }).ok,
    false,
  );
  equal(decide(me, { action: "update", model: "article" }).ok, false);
  deepEqual(decide(me, { action: "read", model: "article", owner: ME }), {
    ok: true,
  });
  deepEqual(decide(me, { action: "read", model: "article", owner: OTHER }), {
    ok: false,
    code: "missing_permission",
    missing: ["read"],
  });
});

Deno.test("decide() judges update:own of a credential against its creator (MCR-027)", () => {
  const cred = credentialAuthority(
    { models: { article: ["read", "update:own"] }, system: [] },
    ["content:write"],
  );
  deepEqual(
    decide(cred, { action: "entries.update", model: "article", owner: ME }),
    {
      ok: true,
    },
  );
  deepEqual(
    decide(cred, { action: "entries.update", model: "article", owner: OTHER }),
    { ok: false, code: "missing_permission", missing: ["update"] },
  );
});

Deno.test("decide() refuses a language outside the role with locale_denied, whole (MOD-042)", () => {
  const me = personAuthority({
    ...editor,
    languages: { publish: ["en"], update: ["en", "fr"] },
  });
  deepEqual(
    decide(me, {
      action: "publish",
      model: "article",
      languages: ["en", "de", "fr"],
    }),
    { ok: false, code: "locale_denied", languages: ["de", "fr"] },
  );
  deepEqual(
    decide(me, { action: "publish", model: "article", languages: ["en"] }),
    {
      ok: true,
    },
  );
  deepEqual(
    decide(me, { action: "update", model: "page", languages: ["fr"] }),
    {
      ok: true,
    },
  );
  // No limit on create: every language.
  deepEqual(
    decide(me, { action: "create", model: "page", languages: ["de"] }),
    {
      ok: true,
    },
  );
  equal(allowedLanguages(me, "create"), null);
  deepEqual(allowedLanguages(me, "publish"), ["en"]);
});

Deno.test("decide() limits each of the eight actions to its own languages, and field limits per model replace the `*` entry (MOD-038)", () => {
  const actions = [
    "read",
    "create",
    "update",
    "delete",
    "restore",
    "review",
    "publish",
    "unpublish",
  ] as const;
  for (const limited of actions) {
    const me = personAuthority({
      models: { "*": [...actions] },
      system: [],
      languages: { [limited]: ["en"] },
    });
    for (const action of actions) {
      deepEqual(
        decide(me, { action, model: "article", languages: ["en"] }),
        { ok: true },
        `${limited} limited: ${action} en`,
      );
      deepEqual(
        decide(me, { action, model: "article", languages: ["de"] }),
        action === limited
          ? { ok: false, code: "locale_denied", languages: ["de"] }
          : { ok: true },
        `${limited} limited: ${action} de`,
      );
    }
    deepEqual(allowedLanguages(me, limited), ["en"]);
  }
  const me = personAuthority({
    models: { "*": ["read", "update"] },
    system: [],
    fields: {
      "*": { read: ["title", "body"], write: ["title"] },
      page: { read: ["title"], write: ["title"] },
    },
  });
  deepEqual(readableFields(me, "article", ["title", "body", "secret"]), [
    "title",
    "body",
  ]);
  deepEqual(readableFields(me, "page", ["title", "body"]), ["title"]);
  deepEqual(writableFields(me, "article", ["title", "body"]), ["title"]);
});

Deno.test("decide() refuses writing a field the role cannot write with field_denied (MOD-041)", () => {
  const me = personAuthority({
    models: { "*": ["read", "update", "restore"] },
    system: ["content:restore"],
    fields: {
      "*": {
        read: ["title", "body", "seo"],
        write: ["title", "seo", "secret"],
      },
      page: { write: ["title"] },
    },
  });
  deepEqual(
    decide(me, {
      action: "update",
      model: "article",
      fields: ["title", "seo.meta_title"],
    }),
    { ok: true },
  );
  // `secret` is listed writable but unreadable, so it is not writable.
  deepEqual(
    decide(me, {
      action: "restore",
      model: "article",
      fields: ["body", "secret", "title"],
    }),
    { ok: false, code: "field_denied", fields: ["body", "secret"] },
  );
  // The model's own entry replaces the `*` entry whole: page reads every field.
  deepEqual(decide(me, { action: "update", model: "page", fields: ["seo"] }), {
    ok: false,
    code: "field_denied",
    fields: ["seo"],
  });
  // Reads never refuse a field; callers leave unreadable ones out.
  deepEqual(
    decide(me, { action: "read", model: "article", fields: ["secret"] }),
    {
      ok: true,
    },
  );
});

Deno.test("readableFields() leaves out fields the role cannot read (MOD-039)", () => {
  const me = personAuthority({
    models: { "*": ["read"] },
    system: [],
    fields: { article: { read: ["title", "faqs"], write: ["title"] } },
  });
  deepEqual(
    readableFields(me, "article", ["title", "body", "faqs[2].question"]),
    ["title", "faqs[2].question"],
  );
  deepEqual(readableFields(me, "page", ["title", "body"]), ["title", "body"]);
  deepEqual(writableFields(me, "article", ["title", "body", "faqs"]), [
    "title",
  ]);
});

Deno.test("readReach() answers all, own or none per model and credential models", () => {
  const perms: Permissions = {
    models: { article: ["read"], note: ["read:own"] },
    system: [],
  };
  equal(readReach(personAuthority(perms), "article"), "all");
  equal(readReach(personAuthority(perms), "note"), "own");
  equal(readReach(personAuthority(perms), "page"), "none");
  equal(readReach(credentialAuthority(perms, [], ["note"]), "article"), "none");
});

Deno.test("decide() lets a credential read without asking for content:read (MCR-010)", () => {
  const cred = credentialAuthority(editor, []);
  deepEqual(decide(cred, { action: "entries.read", model: "page" }), {
    ok: true,
  });
  deepEqual(decide(cred, { action: "read", model: "page" }), { ok: true });
  deepEqual(decide(cred, { action: "site.read" }), { ok: true });
});

Deno.test("decide() refuses a command outside the credential's scopes (MCR-016, MCR-025)", () => {
  const admin = personAuthority({
    models: { "*": ["read", "delete"] },
    system: ["role:manage"],
  });
  const cred = credentialAuthority(admin.permissions, ["content:trash"]);
  deepEqual(decide(cred, { action: "entries.trash", model: "article" }), {
    ok: true,
  });
  deepEqual(decide(cred, { action: "roles.write" }), {
    ok: false,
    code: "missing_permission",
    missing: ["scope roles:write"],
  });
  // A person is never limited by scopes.
  deepEqual(decide(admin, { action: "roles.write" }), { ok: true });
});

Deno.test("decide() refuses purge to a credential holding only content:trash (MCR-017)", () => {
  const cred = credentialAuthority(
    { models: { "*": ["read", "delete"] }, system: [] },
    ["content:trash"],
  );
  deepEqual(decide(cred, { action: "entries.purge", model: "article" }), {
    ok: false,
    code: "missing_permission",
    missing: ["scope content:purge"],
  });
});

Deno.test("decide() needs content:restore for a version restore (MCR-011)", () => {
  const perms: Permissions = {
    models: { "*": ["read", "update", "restore"] },
    system: [],
  };
  const cred = credentialAuthority(perms, ["content:write"]);
  deepEqual(
    decide(cred, { action: "entries.restore_version", model: "article" }),
    {
      ok: false,
      code: "missing_permission",
      missing: ["content:restore"],
    },
  );
  const withRestore = credentialAuthority(
    { ...perms, system: ["content:restore"] },
    ["content:write"],
  );
  deepEqual(
    decide(withRestore, {
      action: "entries.restore_version",
      model: "article",
    }),
    { ok: true },
  );
});

Deno.test("decide() needs update and the transition's permission to publish through a credential (MCR-015, MCR-006)", () => {
  const publisher = credentialAuthority(
    { models: { "*": ["read", "publish"] }, system: [] },
    ["lifecycle:publish"],
  );
  deepEqual(
    decide(publisher, { action: "entries.publish", model: "article" }),
    {
      ok: false,
      code: "missing_permission",
      missing: ["update"],
    },
  );
  const full = credentialAuthority(
    { models: { "*": ["read", "update", "publish"] }, system: [] },
    ["lifecycle:publish"],
  );
  deepEqual(decide(full, { action: "entries.publish", model: "article" }), {
    ok: true,
  });
  deepEqual(decide(full, { action: "publish", model: "article" }), {
    ok: true,
  });
  deepEqual(decide(full, { action: "entries.unpublish", model: "article" }), {
    ok: false,
    code: "missing_permission",
    missing: ["unpublish"],
  });
  // Without the scope, the role permission alone does not reach the credential.
  deepEqual(decide(full, { action: "update", model: "article" }), {
    ok: false,
    code: "missing_permission",
    missing: ["scope content:write or scope pages:write"],
  });
});

Deno.test("decide() keeps a credential inside its models", () => {
  const cred = credentialAuthority(editor, ["content:write"], ["article"]);
  deepEqual(decide(cred, { action: "entries.update", model: "article" }), {
    ok: true,
  });
  deepEqual(decide(cred, { action: "entries.update", model: "page" }), {
    ok: false,
    code: "missing_permission",
    missing: ["model page"],
  });
  deepEqual(decide(cred, { action: "read", model: "page" }), {
    ok: false,
    code: "missing_permission",
    missing: ["model page"],
  });
});

Deno.test("decide() asks site:infra for search settings and model:delete for a model delete (MCR-020, MCR-022)", () => {
  const cred = credentialAuthority(
    { models: {}, system: ["site:settings", "model:apply"] },
    ["settings:write", "schema:write"],
  );
  deepEqual(decide(cred, { action: "settings.write" }), { ok: true });
  deepEqual(decide(cred, { action: "settings.search" }), {
    ok: false,
    code: "missing_permission",
    missing: ["site:infra"],
  });
  deepEqual(decide(cred, { action: "models.write" }), { ok: true });
  deepEqual(decide(cred, { action: "models.delete" }), {
    ok: false,
    code: "missing_permission",
    missing: ["model:delete"],
  });
});

Deno.test("decide() refuses a media delete to a creator without media:delete (MCR-014)", () => {
  const cred = credentialAuthority(editor, ["media:write"]);
  deepEqual(decide(cred, { action: "media.upload" }), { ok: true });
  deepEqual(decide(cred, { action: "media.delete" }), {
    ok: false,
    code: "missing_permission",
    missing: ["media:delete"],
  });
});

Deno.test("decide() refuses a destructive plugin operation to a read-only creator (MCR-026)", () => {
  const cred = credentialAuthority({ models: { "*": ["read"] }, system: [] }, [
    "plugins:use",
  ]);
  deepEqual(
    decide(cred, { action: "plugins.entry_operation", model: "article" }),
    {
      ok: true,
    },
  );
  deepEqual(
    decide(cred, {
      action: "plugins.entry_operation_destructive",
      model: "article",
    }),
    { ok: false, code: "missing_permission", missing: ["update"] },
  );
  deepEqual(decide(cred, { action: "plugins.site_operation" }), {
    ok: false,
    code: "missing_permission",
    missing: ["site:plugins"],
  });
});

Deno.test("decide() never lets a credential use a permission no scope allows", () => {
  const cred = credentialAuthority(
    { models: {}, system: ["site:deploy"] },
    ["settings:write"],
  );
  deepEqual(decide(cred, { action: "site:deploy" }), {
    ok: false,
    code: "missing_permission",
    missing: ["site:deploy (not available to management credentials)"],
  });
});

Deno.test("decide() checks languages and fields of a command after its permissions", () => {
  const cred = credentialAuthority({
    models: { "*": ["read", "create", "update"] },
    system: [],
    languages: { create: ["en"] },
    fields: { "*": { write: ["title"] } },
  }, ["content:write"]);
  deepEqual(
    decide(cred, {
      action: "entries.add_language",
      model: "a",
      languages: ["fr"],
    }),
    { ok: false, code: "locale_denied", languages: ["fr"] },
  );
  deepEqual(
    decide(cred, {
      action: "entries.create",
      model: "a",
      languages: ["en"],
      fields: ["title", "body"],
    }),
    { ok: false, code: "field_denied", fields: ["body"] },
  );
});

Deno.test("decide() throws for a model action without a model and for an unknown action", () => {
  const me = personAuthority(editor);
  throws(() => decide(me, { action: "update" }), /names no model/);
  throws(() => decide(me, { action: "entries.update" }), /names no model/);
  // deno-lint-ignore no-explicit-any
  throws(() => decide(me, { action: "fly" as any }), /unknown action "fly"/);
});
