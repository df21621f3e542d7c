// The contract against spec 2's route table, key rules and error statuses, and each route's scope enforced over HTTP.
import assert from "node:assert/strict";
import { ERROR_STATUS, OPERATIONS } from "../../core/manage/contract/mod.ts";
import { refusal, withManageApp } from "./helpers.ts";

/** Spec 2 part 4.2, one row per method and path (`{}` for any parameter): scope, and whether a key is taken. */
const ROUTE_TABLE: [string, string, boolean][] = [
  ["GET /site", "content:read", false],
  ["GET /models", "content:read", false],
  ["GET /entries", "content:read", false],
  ["POST /entries", "content:write", true],
  ["GET /entries/{}", "content:read", false],
  ["PUT /entries/{}", "content:write", true],
  ["GET /entries/{}/versions", "content:read", false],
  ["GET /entries/{}/versions/{}", "content:read", false],
  ["GET /entries/{}/dependents", "content:read", false],
  ["POST /entries/{}/publish", "lifecycle:publish", true],
  ["POST /entries/{}/unpublish", "lifecycle:publish", true],
  ["POST /entries/{}/proposals", "content:propose", true],
  ["GET /entries/{}/proposals", "content:read", false],
  ["GET /entries/{}/editing", "content:read", false],
  ["POST /entries/{}/editing/takeover", "content:write", false],
  ["PUT /entries/{}/editing/draft", "content:write", false],
  ["POST /entries/{}/editing/draft/discard", "content:write", false],
  ["GET /pages/{}", "content:read", false],
  ["POST /pages/{}/save", "pages:write", true],
  ["POST /pages/{}/translations", "pages:write", true],
  ["GET /media", "content:read", false],
  ["POST /media", "media:write", true],
  ["GET /media/folders", "content:read", false],
  ["POST /media/folders", "media:write", true],
  ["PUT /media/folders/{}", "media:write", true],
  ["POST /media/folders/{}/remove", "media:write", true],
  ["POST /media/move", "media:write", true],
  ["GET /media/sources", "media:write", false],
  ["GET /media/sources/{}/{}/items", "media:write", false],
  ["POST /media/sources/{}/{}/import", "media:write", true],
  ["GET /media/{}", "content:read", false],
  ["GET /media/{}/usage", "content:read", false],
  ["PUT /media/{}", "media:write", true],
  ["POST /media/{}/replace", "media:write", true],
  ["GET /media/{}/originals", "content:read", false],
  ["PUT /media/{}/originals/{}", "media:write", true],
  ["DELETE /media/{}/originals/{}", "media:write", true],
  ["POST /media/{}/remove", "media:write", true],
  ["GET /languages", "content:read", false],
  ["POST /entries/{}/locales", "content:write", true],
  ["POST /entries/{}/versions/{}/restore", "content:write", true],
  ["POST /entries/{}/transition", "workflow:move", true],
  ["GET /entries/{}/assignees", "workflow:assign", false],
  ["PUT /entries/{}/assignment", "workflow:assign", true],
  ["GET /trash", "content:read", false],
  ["GET /entries/{}/trash", "content:read", false],
  ["POST /entries/{}/trash", "content:trash", true],
  ["POST /entries/{}/trash/restore", "content:trash", true],
  ["POST /entries/{}/trash/purge", "content:purge", true],
  ["POST /entries/relate", "content:write", true],
  ["GET /entries/{}/related-from", "content:read", false],
  ["PUT /entries/{}/related-from", "content:write", true],
  ["GET /menus", "settings:write", false],
  ["GET /menus/{}", "settings:write", false],
  ["PUT /menus/{}", "settings:write", true],
  ["POST /menus/{}/languages", "settings:write", true],
  ["GET /models/{}", "content:read", false],
  ["GET /models/proposals", "schema:propose", false],
  ["POST /models/proposals", "schema:propose", true],
  ["GET /models/proposals/{}", "schema:propose", false],
  ["POST /models", "schema:write", true],
  ["PUT /models/{}", "schema:write", true],
  ["PUT /models/{}/folder", "schema:write", true],
  ["PUT /models/{}/definition", "schema:write", true],
  ["POST /models/{}/remove", "schema:write", true],
  // The six settings documents share one route each way.
  ["GET /settings/{}", "settings:write", false],
  ["PUT /settings/{}", "settings:write", true],
  ["POST /settings/seo/redirect-review", "settings:write", false],
  ["GET /imports/sources", "data:import", false],
  ["POST /imports/sources", "data:import", true],
  ["GET /imports", "data:import", false],
  ["POST /imports", "data:import", true],
  ["GET /imports/{}", "data:import", false],
  ["PUT /imports/{}/archive/parts/{}", "data:import", true],
  ["POST /imports/{}/archive/complete", "data:import", true],
  ["POST /imports/{}/advance", "data:import", true],
  ["GET /roles", "roles:write", false],
  ["GET /roles/{}", "roles:write", false],
  ["POST /roles", "roles:write", true],
  ["PUT /roles/{}", "roles:write", true],
  ["DELETE /roles/{}", "roles:write", true],
  ["GET /plugins", "plugins:use", false],
  ["GET /plugins/manage-views", "plugins:use", false],
  ["GET /plugins/content-actions", "plugins:use", false],
  ["GET /plugins/operations", "plugins:use", false],
  ["GET /rich-blocks", "content:read", false],
  ["POST /plugins/{}/manage-views/{}/launch", "plugins:use", false],
  [
    "POST /plugins/{}/content-actions/{}/entries/{}/launch",
    "plugins:use",
    false,
  ],
  ["POST /plugins/{}/operations/{}/invoke", "plugins:use", true],
];

const route = (op: { method: string; path: string }) =>
  `${op.method} ${op.path.replace(/\{[^}]+\}/g, "{}")}`;

Deno.test("every route of spec 2's route table is declared with its scope and key rule (MAPI-018, MAPI-006)", () => {
  const declared = new Map(OPERATIONS.map((op) => [route(op), op]));
  for (const [at, scope, keyed] of ROUTE_TABLE) {
    const op = declared.get(at);
    assert.ok(op, `${at} is declared`);
    assert.equal(op.scope, scope, `${at}: scope`);
    assert.equal(op.key !== null, keyed, `${at}: Idempotency-Key`);
  }
  // MAPI-006: the only writes without a key are the launches, the redirect review and /editing.
  assert.deepEqual(
    OPERATIONS.filter((op) => op.method !== "GET" && op.key === null)
      .map(route).sort(),
    [
      "POST /entries/{}/editing/draft/discard",
      "POST /entries/{}/editing/takeover",
      "POST /plugins/{}/content-actions/{}/entries/{}/launch",
      "POST /plugins/{}/manage-views/{}/launch",
      "POST /settings/seo/redirect-review",
      "PUT /entries/{}/editing/draft",
    ],
  );
});

Deno.test("publish, unpublish and workflow move keys are kept 30 days; every other key 24 hours (MAPI-009)", () => {
  const long = new Set([
    "publish-entry",
    "unpublish-entry",
    "transition-entry",
  ]);
  for (const op of OPERATIONS) {
    if (op.key === null) continue;
    // move-media also keeps its key 30 days: whether spec 2's "move" means it is open.
    if (op.name === "move-media") continue;
    assert.equal(
      op.key.retention,
      long.has(op.name) ? "long" : "short",
      op.name,
    );
  }
});

/** Spec 2 part 7: the statuses stated for each code. */
const STATED: Record<number, string[]> = {
  400: [
    "invalid_request",
    "input_invalid",
    "invalid_permissions",
    "media_framing_not_image",
  ],
  401: ["unauthorized"],
  403: ["missing_permission", "escalation_refused", "forbidden"],
  404: [
    "not_found",
    "operation_unavailable",
    "media_source_unavailable",
    "media_edit_source_not_found",
  ],
  405: ["method_not_allowed"],
  409: [
    "idempotency_in_progress",
    "idempotency_key_reused",
    "model_changed",
    "model_change_blocked",
    "schema_proposal_stale",
    "media_duplicate",
    "media_folder_changed",
    "media_changed",
    "media_in_use",
    "media_external_bytes_unavailable",
    "installation_not_active",
    "plugin_unavailable",
    "invocation_in_progress",
    "single_entry_exists",
    "locale_exists",
    "relation_target_taken",
    "relation_changed_concurrently",
  ],
  422: [
    "relation_target_not_found",
    "relation_duplicate_target",
    "relation_position_not_ordered",
    "unknown_locale",
    "media_source_mode_unsupported",
    "plugin_refused",
    "plugin_policy_transform_invalid",
    "plugin_policy_transform_conflict",
    "plugin_policy_refused",
  ],
  429: ["rate_limited", "plugin_policy_budget_exhausted"],
  502: [
    "plugin_unreachable",
    "plugin_response_invalid",
    "media_source_file_unreachable",
  ],
  503: ["plugin_policy_unavailable"],
  504: ["plugin_timeout"],
};
// Codes of spec 2 part 7 no Management API route answers: the generated backend's (not built) and
// the spatial ones; grant_not_held is the credentials page's (tests/admin/credentials_page_test.ts).

Deno.test("every refusal code is answered by name with the status spec 2 part 7 states (MAPI-021)", () =>
  withManageApp(async (t) => {
    for (const [status, codes] of Object.entries(STATED)) {
      for (const code of codes) {
        assert.equal(
          (ERROR_STATUS as Record<string, number>)[code],
          Number(status),
          code,
        );
      }
    }
    // Over the wire: the name and the status of a few, one per class.
    const cases: [Response, number, string][] = [
      [await t.call("GET", "/site?x=1"), 400, "invalid_request"],
      [await t.call("GET", "/site", { secret: null }), 401, "unauthorized"],
      [
        await t.call("GET", "/settings/editorial", {
          secret: (await t.credential(["content:read"])).secret,
        }),
        403,
        "missing_permission",
      ],
      [await t.call("GET", "/nothing"), 404, "not_found"],
      [await t.call("DELETE", "/site"), 405, "method_not_allowed"],
      [
        await t.call("POST", "/languages", { key: "d", body: { code: "de" } }),
        409,
        "locale_exists",
      ],
    ];
    for (const [response, status, code] of cases) {
      assert.equal(response.status, status, code);
      assert.equal((await refusal(response)).code, code);
    }
  }));

/** A value for each path parameter: ids are UUIDs, the rest plain words. */
function fill(path: string): string {
  return path.replace(
    /\{([^}]+)\}/g,
    (_, name: string) =>
      /id$/i.test(name) ? crypto.randomUUID() : name === "lang" ? "en" : "x",
  );
}

Deno.test("every route refuses a credential without its scope: 403 missing_permission naming the scope, before anything else (MAPI-018)", () =>
  withManageApp(async (t) => {
    const all = [...new Set(OPERATIONS.map((op) => op.scope))];
    // content:read is always included in a credential (spec 2 part 5.1).
    for (const op of OPERATIONS.filter((op) => op.scope !== "content:read")) {
      const others = all.filter((s) => s !== op.scope);
      const { secret } = await t.credential(others);
      const response = await t.call(op.method, fill(op.path), {
        secret,
        key: op.key === null ? undefined : crypto.randomUUID(),
        body: op.method === "GET" ? undefined : {},
      });
      assert.equal(response.status, 403, op.name);
      const error = await refusal(response);
      assert.equal(error.code, "missing_permission", op.name);
      assert.deepEqual(error.missing, [`scope ${op.scope}`], op.name);
    }
  }));
