// Manifest v1: closed objects, every declaration of spec 1 part 2.1, one origin (PLG-007, PEXT-005..PEXT-010).
import { deepEqual, equal, ok } from "node:assert/strict";
import {
  type GroupControlInput,
  launchUrl,
  parseManifest,
} from "./manifest.ts";
import { fullManifest, minimalManifest } from "./_testing.ts";

const manifestUrl = "https://plugin.example.com/svc/manifest.json";

function refusedAt(json: unknown, path: string): void {
  const result = parseManifest(json, { manifestUrl });
  equal(result.ok, false, `expected a refusal at ${path}`);
  if (!result.ok) {
    equal(result.code, "plugin_response_invalid");
    ok(
      result.issues.some((i) =>
        i.path === path || i.path.startsWith(`${path}.`)
      ),
      `issues ${JSON.stringify(result.issues)} do not name ${path}`,
    );
  }
}

Deno.test("parseManifest() accepts the minimal and the full manifest and applies defaults", () => {
  const min = parseManifest(minimalManifest(), { manifestUrl });
  ok(min.ok);
  if (min.ok) {
    deepEqual(min.manifest.operations, []);
    deepEqual(min.manifest.ui_extensions, []);
  }
  const full = parseManifest(fullManifest(), { manifestUrl });
  ok(full.ok, JSON.stringify(!full.ok && full.issues));
  if (full.ok) {
    equal(full.manifest.operations[0].destructive, false);
    equal(full.manifest.operations[0].list_action, false);
    equal(full.manifest.rich_blocks[0].inline, false);
  }
});

Deno.test("parseManifest() keeps every extension kind a plugin may declare (PEXT-001)", () => {
  const full = parseManifest(fullManifest(), { manifestUrl });
  ok(full.ok, JSON.stringify(!full.ok && full.issues));
  if (!full.ok) return;
  const m = full.manifest;
  deepEqual(m.manage_views.map((v) => v.id), ["calendar", "releases"]);
  deepEqual(m.content_actions.map((a) => a.id), ["schedule", "schedule-page"]);
  deepEqual(
    m.operations.map((o) => [o.id, o.audience]),
    [
      ["schedule-status", "interactive"],
      // A content-list column is an operation with the column audience.
      ["schedule-column", "column"],
      ["schedule-draft", "automation"],
      ["release-run", "interactive"],
    ],
  );
  deepEqual(m.policies.map((p) => [p.id, p.kind]), [["alt-text", "save"]]);
  deepEqual(m.media_sources.map((s) => s.id), ["stock"]);
  deepEqual(m.rich_blocks.map((b) => b.type), ["quote"]);
  deepEqual(m.ui_extensions.map((u) => u.id), [
    "schedule-card",
    "calendar-row",
  ]);
});

Deno.test("parseManifest() refuses an unknown key anywhere (OUT-019)", () => {
  refusedAt({ ...minimalManifest(), extra: 1 }, "");
  const m = fullManifest();
  (m.operations![0] as Record<string, unknown>).color = "red";
  refusedAt(m, "operations.0");
  const r = fullManifest();
  (r.rich_blocks![0].render as Record<string, unknown>).onclick = "x";
  refusedAt(r, "rich_blocks.0.render");
});

Deno.test("parseManifest() refuses a URL on a second origin (PLG-007)", () => {
  const m = fullManifest();
  m.operations![1].url = "https://other.example.com/svc/operations/x";
  refusedAt(m, "operations.1.url");
  refusedAt(
    {
      ...minimalManifest(),
      activation_url: "https://plugin.example.com:444/a",
    },
    "activation_url",
  );
  refusedAt(
    { ...minimalManifest(), base_url: "http://plugin.example.com/" },
    "base_url",
  );
  const p = fullManifest();
  p.policies![0].url = "https://evil.example.com/p";
  refusedAt(p, "policies.0.url");
  refusedAt(
    { ...fullManifest(), management_url: "https://x.example.com/i" },
    "management_url",
  );
  const ok1 = parseManifest(minimalManifest("http://localhost:8787"), {
    manifestUrl: "http://localhost:8787/svc/manifest.json",
  });
  ok(ok1.ok);
});

Deno.test("parseManifest() refuses URLs with credentials or fragments, and identity fields out of shape", () => {
  refusedAt(
    {
      ...minimalManifest(),
      activation_url: "https://u:p@plugin.example.com/a",
    },
    "activation_url",
  );
  refusedAt(
    { ...minimalManifest(), activation_url: "https://plugin.example.com/a#x" },
    "activation_url",
  );
  for (
    const id of ["scheduling", "Com.Example.X", "com..x", ".com.x", "com.x."]
  ) {
    refusedAt({ ...minimalManifest(), id }, "id");
  }
  for (const version of ["1", "1.0", "v1.0.0", "01.0.0"]) {
    refusedAt({ ...minimalManifest(), version }, "version");
  }
  refusedAt({ ...minimalManifest(), protocol_version: 2 }, "protocol_version");
  refusedAt({ ...minimalManifest(), manifest_version: 2 }, "manifest_version");
  refusedAt({ ...minimalManifest(), capabilities: ["root"] }, "capabilities");
  refusedAt(
    { ...minimalManifest(), capabilities: ["content:read", "content:read"] },
    "capabilities",
  );
  refusedAt({ ...minimalManifest(), name: "" }, "name");
  refusedAt({ ...minimalManifest(), name: "n".repeat(81) }, "name");
});

Deno.test("parseManifest() refuses an unknown operation scope or audience and checks column, cell and requires (PEXT-005)", () => {
  const scope = fullManifest();
  (scope.operations![0] as Record<string, unknown>).scope = "global";
  refusedAt(scope, "operations.0.scope");
  const audience = fullManifest();
  (audience.operations![0] as Record<string, unknown>).audience = "robot";
  refusedAt(audience, "operations.0.audience");
  const cell = fullManifest();
  delete cell.operations![1].cell;
  refusedAt(cell, "operations.1.cell");
  const cells = fullManifest();
  cells.operations![0].result = ["cells"];
  refusedAt(cells, "operations.0.result");
  const requires = fullManifest();
  requires.operations![0].requires = ["media:write"];
  refusedAt(requires, "operations.0.requires.0");
  const sitePlugins = fullManifest();
  sitePlugins.operations![0].requires = ["site:plugins"];
  refusedAt(sitePlugins, "operations.0.requires");
  const listAction = fullManifest();
  listAction.operations![3].list_action = true;
  refusedAt(listAction, "operations.3.list_action");
  const select = fullManifest();
  delete select.operations![3].input![0].options;
  refusedAt(select, "operations.3.input.0.options");
  const dup = fullManifest();
  dup.operations![1].id = "schedule-status";
  refusedAt(dup, "operations.1");
});

Deno.test("parseManifest() requires delivery_origins exactly when reference is declared (PEXT-007)", () => {
  const missing = fullManifest();
  delete missing.media_sources![0].delivery_origins;
  refusedAt(missing, "media_sources.0.delivery_origins");
  const extra = fullManifest();
  extra.media_sources![0].modes = ["copy"];
  refusedAt(extra, "media_sources.0.delivery_origins");
  const copyOnly = fullManifest();
  copyOnly.media_sources![0].modes = ["copy"];
  delete copyOnly.media_sources![0].delivery_origins;
  ok(parseManifest(copyOnly, { manifestUrl }).ok);
  const http = fullManifest();
  http.media_sources![0].delivery_origins = ["http://cdn.example.net"];
  refusedAt(http, "media_sources.0.delivery_origins.0");
  const path = fullManifest();
  path.media_sources![0].delivery_origins = ["https://cdn.example.net/x"];
  refusedAt(path, "media_sources.0.delivery_origins.0");
  const cap = fullManifest();
  cap.capabilities = cap.capabilities.filter((c) => c !== "media:source");
  refusedAt(cap, "capabilities");
});

Deno.test("parseManifest() lets rich-block groups nest three levels and refuses a fourth; at most 50 items (PEXT-008, PEXT-009)", () => {
  const four = fullManifest();
  const first = four.rich_blocks![0].controls[3] as GroupControlInput;
  const third = (first.controls[0] as GroupControlInput)
    .controls[0] as GroupControlInput;
  third.controls.push({
    name: "deeper",
    label: "Deeper",
    type: "group",
    max_items: 2,
    controls: [{ name: "w", label: "W", type: "text" }],
  });
  refusedAt(four, "rich_blocks.0.controls.3");
  const items = fullManifest();
  (items.rich_blocks![0].controls[3] as GroupControlInput).max_items = 51;
  refusedAt(items, "rich_blocks.0.controls.3");
  const controls = fullManifest();
  for (
    const type of [
      "text",
      "textarea",
      "rich",
      "number",
      "boolean",
      "url",
      "media",
      "relation",
    ] as const
  ) {
    controls.rich_blocks![0].controls.push({
      name: `c_${type}`,
      label: type,
      type,
    });
  }
  controls.rich_blocks![0].controls.push({
    name: "c_select",
    label: "select",
    type: "select",
    options: [{ value: "a", label: "A" }],
  });
  ok(parseManifest(controls, { manifestUrl }).ok);
  const rule = fullManifest();
  rule.rich_blocks![0].rules = [{
    kind: "one_of_required",
    fields: ["by", "nope"],
  }];
  refusedAt(rule, "rich_blocks.0.rules.0");
  const migration = fullManifest();
  migration.rich_blocks![0].migrations = [{
    from: 1,
    to: 3,
    steps: [{ op: "remove", field: "x" }],
  }];
  refusedAt(migration, "rich_blocks.0.migrations.0");
  const tag = fullManifest();
  tag.rich_blocks![0].render = { el: "script" } as never;
  refusedAt(tag, "rich_blocks.0.render");
});

Deno.test("parseManifest() checks ui_extensions placements and what their cards open (PEXT-002)", () => {
  const placement = fullManifest();
  (placement.ui_extensions![0] as Record<string, unknown>).placement = "header";
  refusedAt(placement, "ui_extensions.0.placement");
  const wrongKind = fullManifest();
  wrongKind.ui_extensions![1].opens = {
    kind: "content_action",
    id: "schedule",
  };
  refusedAt(wrongKind, "ui_extensions.1.opens");
  const unknown = fullManifest();
  unknown.ui_extensions![0].opens = { kind: "content_action", id: "nope" };
  refusedAt(unknown, "ui_extensions.0.opens");
  const scope = fullManifest();
  scope.ui_extensions![0].placement = "page_sidebar";
  refusedAt(scope, "ui_extensions.0.opens");
  const noManagement = fullManifest();
  delete noManagement.management_url;
  refusedAt(noManagement, "management_url");
});

Deno.test("parseManifest() checks policies' kind and mode (PEXT-010)", () => {
  const kind = fullManifest();
  (kind.policies![0] as Record<string, unknown>).kind = "delete";
  refusedAt(kind, "policies.0.kind");
  const mode = fullManifest();
  (mode.policies![0] as Record<string, unknown>).mode = "maybe";
  refusedAt(mode, "policies.0.mode");
});

Deno.test("parseManifest() takes events as a list of notification kinds: none, some or all; refuses others and repeats", () => {
  const without = parseManifest(minimalManifest(), { manifestUrl });
  ok(without.ok);
  if (without.ok) equal(without.manifest.events, undefined);
  for (
    const events of [
      [],
      ["content.changed"],
      ["content.changed", "media.changed", "model.changed"],
    ]
  ) {
    const parsed = parseManifest({ ...minimalManifest(), events }, {
      manifestUrl,
    });
    ok(parsed.ok, JSON.stringify(events));
    if (parsed.ok) deepEqual(parsed.manifest.events, events);
  }
  refusedAt({ ...minimalManifest(), events: ["entry.saved"] }, "events.0");
  refusedAt({ ...minimalManifest(), events: "content.changed" }, "events");
  refusedAt(
    { ...minimalManifest(), events: ["media.changed", "media.changed"] },
    "events",
  );
});

Deno.test("launchUrl() fills {installation_id} and adds svc_launch and svc_view", () => {
  const parsed = parseManifest(fullManifest(), { manifestUrl });
  ok(parsed.ok);
  if (!parsed.ok) return;
  equal(
    launchUrl(parsed.manifest, { installationId: "in st", code: "svl_abc" }),
    "https://plugin.example.com/installations/in%20st?svc_launch=svl_abc",
  );
  equal(
    launchUrl(parsed.manifest, {
      installationId: "i1",
      code: "svl_abc",
      view: "calendar",
    }),
    "https://plugin.example.com/installations/i1?svc_launch=svl_abc&svc_view=calendar",
  );
  const min = parseManifest(minimalManifest(), { manifestUrl });
  ok(min.ok);
  if (min.ok) {
    equal(launchUrl(min.manifest, { installationId: "i", code: "c" }), null);
  }
});

Deno.test("parseManifest() takes each list up to its limit and refuses one more", () => {
  const op = (i: number) => ({
    id: `op-${i}`,
    label: `Op ${i}`,
    url: `https://plugin.example.com/op/${i}`,
    scope: "entry" as const,
    audience: "interactive" as const,
    requires: [],
    result: ["text" as const],
  });
  const lists: [string, number, (i: number) => unknown][] = [
    ["manage_views", 10, (i) => ({ id: `v${i}`, label: "V" })],
    [
      "content_actions",
      20,
      (i) => ({ id: `a${i}`, label: "A", scope: "entry" }),
    ],
    ["operations", 50, op],
    [
      "policies",
      20,
      (i) => ({
        id: `p${i}`,
        label: "P",
        url: "https://plugin.example.com/p",
        kind: "save",
        mode: "advisory",
      }),
    ],
    [
      "media_sources",
      10,
      (i) => ({
        id: `m${i}`,
        label: "M",
        url: "https://plugin.example.com/m",
        modes: ["copy"],
      }),
    ],
    [
      "ui_extensions",
      20,
      (i) => ({
        id: `c${i}`,
        placement: "settings_row",
        title: "T",
        button_label: "Open",
        opens: { kind: "manage" },
      }),
    ],
  ];
  for (const [list, limit, make] of lists) {
    const base = {
      ...minimalManifest(),
      capabilities: ["content:read", "media:source"],
      management_url: "https://plugin.example.com/i/{installation_id}",
    };
    const at = parseManifest({
      ...base,
      [list]: Array.from({ length: limit }, (_, i) => make(i)),
    }, {
      manifestUrl,
    });
    ok(at.ok, `${list} at ${limit}: ${JSON.stringify(!at.ok && at.issues)}`);
    refusedAt(
      { ...base, [list]: Array.from({ length: limit + 1 }, (_, i) => make(i)) },
      list,
    );
  }
  const inputs = (n: number) => {
    const m = fullManifest();
    m.operations![0].input = Array.from({ length: n }, (_, i) => ({
      name: `f${i}`,
      label: "F",
      type: "text" as const,
    }));
    return m;
  };
  ok(parseManifest(inputs(20), { manifestUrl }).ok);
  refusedAt(inputs(21), "operations.0.input");
  ok(
    parseManifest({ ...minimalManifest(), name: "n".repeat(80) }, {
      manifestUrl,
    }).ok,
  );
});
