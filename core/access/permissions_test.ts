import { deepEqual, equal, ok } from "node:assert/strict";
import { parsePermissions } from "./permissions.ts";

Deno.test("parsePermissions() reads a full document and deduplicates lists (SET-010)", () => {
  const result = parsePermissions({
    models: { "*": ["read", "read"], article: ["update:own", "publish"] },
    system: ["media:upload"],
    fields: { article: { read: ["title", "body"], write: ["title"] } },
    languages: { publish: ["en"], read: ["en", "fr"] },
  });
  ok(result.ok);
  deepEqual(result.permissions, {
    models: { "*": ["read"], article: ["update:own", "publish"] },
    system: ["media:upload"],
    fields: { article: { read: ["title", "body"], write: ["title"] } },
    languages: { publish: ["en"], read: ["en", "fr"] },
  });
});

Deno.test("parsePermissions() reads an empty document as granting nothing", () => {
  const result = parsePermissions({});
  ok(result.ok);
  deepEqual(result.permissions, { models: {}, system: [] });
});

Deno.test("parsePermissions() lists every reason at once with invalid_permissions (SET-012)", () => {
  const result = parsePermissions({
    models: { article: ["read", "publsh"], "bad key!": ["read"] },
    system: ["site:everything", "media:upload"],
    fields: { "*": { read: ["title"], hide: ["body"] } },
    languages: { publish: ["en", "not a code"], archive: ["en"] },
    owner: "me",
  });
  equal(result.ok, false);
  if (result.ok) return;
  equal(result.code, "invalid_permissions");
  deepEqual(result.reasons.map((r) => r.path).sort(), [
    "fields.*.hide",
    "languages.archive",
    "languages.publish[1]",
    "models.article[1]",
    "models.bad key!",
    "owner",
    "system[0]",
  ]);
  const byPath = new Map(result.reasons.map((r) => [r.path, r.message]));
  equal(byPath.get("models.article[1]"), 'Unknown model permission "publsh"');
  equal(byPath.get("system[0]"), 'Unknown system permission "site:everything"');
  equal(byPath.get("owner"), 'Unknown key "owner"');
  equal(
    byPath.get("languages.publish[1]"),
    'Invalid language code "not a code"',
  );
});

Deno.test("parsePermissions() answers two reasons for two unknown permissions (SET-012)", () => {
  const result = parsePermissions({ models: { "*": ["reed", "writ"] } });
  equal(result.ok, false);
  if (result.ok) return;
  equal(result.reasons.length, 2);
});

Deno.test("parsePermissions() refuses a document that is not an object", () => {
  for (const input of [null, "read", ["read"], 3]) {
    const result = parsePermissions(input);
    equal(result.ok, false);
  }
});

Deno.test("parsePermissions() refuses languages and models the site does not have", () => {
  const result = parsePermissions(
    {
      models: { article: ["read"], "*": ["read"] },
      fields: { page: { read: ["title"] } },
      languages: { read: ["en", "de"] },
    },
    { models: ["article"], languages: ["en", "fr"] },
  );
  equal(result.ok, false);
  if (result.ok) return;
  deepEqual(result.reasons, [
    { path: "fields.page", message: 'Unknown model "page"' },
    {
      path: "languages.read[1]",
      message: 'Unknown language "de": not a language of this site',
    },
  ]);
});

Deno.test("parsePermissions() accepts model keys at the 100-character edge and refuses 101", () => {
  const at = "m".repeat(100);
  ok(parsePermissions({ models: { [at]: ["read"] } }).ok);
  equal(parsePermissions({ models: { [at + "m"]: ["read"] } }).ok, false);
});
