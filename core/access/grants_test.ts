import { deepEqual } from "node:assert/strict";
import { checkGrantHeld, checkRoleEscalation } from "./grants.ts";
import { credentialAuthority, personAuthority } from "./_testing.ts";
import { editorPermissions } from "./default_roles.ts";
import type { Permissions } from "./permissions.ts";

Deno.test("checkGrantHeld() refuses an editor granting schema:write with grant_not_held naming it (MCR-005)", () => {
  const editor = personAuthority(editorPermissions());
  deepEqual(
    checkGrantHeld(
      editor,
      ["content:read", "content:write", "schema:write"],
      null,
    ),
    {
      ok: false,
      code: "grant_not_held",
      not_held: [{ scope: "schema:write", missing: ["model:apply"] }],
    },
  );
  deepEqual(
    checkGrantHeld(editor, [
      "content:write",
      "lifecycle:publish",
      "media:write",
    ], null),
    { ok: true },
  );
});

Deno.test("checkGrantHeld() judges a model-bound scope on every requested model (MCR-005)", () => {
  const creator = personAuthority({
    models: { article: ["read", "update:own", "publish"], page: ["read"] },
    system: [],
  });
  deepEqual(checkGrantHeld(creator, ["lifecycle:publish"], ["article"]), {
    ok: true,
  });
  deepEqual(
    checkGrantHeld(creator, ["lifecycle:publish", "content:read"], [
      "article",
      "page",
      "news",
    ]),
    {
      ok: false,
      code: "grant_not_held",
      not_held: [
        {
          scope: "lifecycle:publish",
          model: "page",
          missing: ["update", "publish or unpublish"],
        },
        {
          scope: "lifecycle:publish",
          model: "news",
          missing: ["update", "publish or unpublish"],
        },
        { scope: "content:read", model: "news", missing: ["read"] },
      ],
    },
  );
});

Deno.test("checkGrantHeld() needs one model holding the whole scope when no models are named", () => {
  // update on one model and publish on another is not publishing anywhere.
  const split = personAuthority({
    models: { article: ["update"], page: ["publish"] },
    system: [],
  });
  deepEqual(checkGrantHeld(split, ["lifecycle:publish"], null), {
    ok: false,
    code: "grant_not_held",
    not_held: [{
      scope: "lifecycle:publish",
      missing: ["update", "publish or unpublish"],
    }],
  });
  const plugins = personAuthority({ models: {}, system: ["site:plugins"] });
  deepEqual(checkGrantHeld(plugins, ["plugins:use"], null), { ok: true });
  deepEqual(
    checkGrantHeld(
      personAuthority({ models: {}, system: [] }),
      ["plugins:use"],
      null,
    ),
    {
      ok: false,
      code: "grant_not_held",
      not_held: [{ scope: "plugins:use", missing: ["read or site:plugins"] }],
    },
  );
});

Deno.test("checkRoleEscalation() refuses a model wildcard to any credential (SET-013)", () => {
  const admin: Permissions = {
    models: { "*": ["read", "update", "publish"] },
    system: ["role:manage"],
  };
  const cred = credentialAuthority(admin, ["roles:write", "content:write"]);
  deepEqual(
    checkRoleEscalation(cred, { models: { "*": ["read"] }, system: [] }),
    {
      ok: false,
      code: "escalation_refused",
      exceeds: ["models.*.read"],
    },
  );
  deepEqual(
    checkRoleEscalation(cred, {
      models: { article: ["read", "update"] },
      system: [],
    }),
    {
      ok: true,
    },
  );
  // The same wildcard is within a person's ceiling when they hold it.
  deepEqual(
    checkRoleEscalation(personAuthority(admin), {
      models: { "*": ["read"] },
      system: [],
    }),
    { ok: true },
  );
});

Deno.test("checkRoleEscalation() bounds a credential by its scopes and models (SET-013)", () => {
  const admin: Permissions = {
    models: { "*": ["read", "update", "publish"] },
    system: ["role:manage", "site:settings"],
  };
  const cred = credentialAuthority(admin, ["roles:write", "content:write"], [
    "article",
  ]);
  deepEqual(
    checkRoleEscalation(cred, {
      models: { article: ["read", "update", "publish"], page: ["read"] },
      system: ["role:manage", "site:settings"],
    }),
    {
      ok: false,
      code: "escalation_refused",
      exceeds: [
        "models.article.publish",
        "models.page.read",
        "system.site:settings",
      ],
    },
  );
});

Deno.test("checkRoleEscalation() refuses permissions and limits wider than a person's own", () => {
  const ceiling = personAuthority({
    models: { article: ["read:own", "update"] },
    system: ["role:manage"],
    fields: { article: { read: ["title", "body"], write: ["title"] } },
    languages: { update: ["en"] },
  });
  deepEqual(
    checkRoleEscalation(ceiling, {
      models: { article: ["read:own", "update:own"] },
      system: [],
      fields: { article: { read: ["title"], write: ["title"] } },
      languages: { update: ["en"] },
    }),
    { ok: true },
  );
  deepEqual(
    checkRoleEscalation(ceiling, {
      models: { article: ["read", "update"] },
      system: ["data:export"],
      fields: { article: { read: ["title", "secret"] } },
      languages: { update: ["en", "fr"] },
    }),
    {
      ok: false,
      code: "escalation_refused",
      exceeds: [
        "models.article.read",
        "system.data:export",
        "fields.article.read",
        "fields.article.write",
        "languages.update",
      ],
    },
  );
});
