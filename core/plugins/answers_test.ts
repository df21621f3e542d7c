// Plugin answers are parsed closed: unknown keys, undeclared kinds, off-origin URLs are refusals (OUT-019, PEXT-006, PEXT-016, PEXT-017, PEXT-024).
import { equal, ok } from "node:assert/strict";
import {
  parseMediaSourceAnswer,
  parseOperationAnswer,
  parsePolicyAnswer,
} from "./answers.ts";

const all = { result: ["text", "rows", "links", "json", "cells"] as const };

function refused(
  result: { ok: true } | { ok: false; code: string },
  label: string,
): void {
  equal(result.ok, false, label);
  if (!result.ok) equal(result.code, "plugin_response_invalid", label);
}

Deno.test("parseOperationAnswer() accepts each block kind and refuses an unknown key (PEXT-006, OUT-019)", () => {
  const answer = {
    status: "ok",
    blocks: [
      { type: "text", text: "Scheduled", tone: "success" },
      {
        type: "rows",
        columns: [{ key: "due", label: "Due" }],
        rows: [{ due: "2026-12-01T10:00:00Z" }],
      },
      { type: "links", links: [{ label: "Open", url: "https://x.example/a" }] },
      { type: "json", filename: "schedule.json", data: { schedule_id: "s1" } },
      {
        type: "cells",
        cells: [{ instance_id: "i1", badge: { label: "Dec 1", tone: "info" } }],
      },
    ],
  };
  ok(parseOperationAnswer(answer, { result: [...all.result] }).ok);
  refused(
    parseOperationAnswer({ ...answer, extra: true }, {
      result: [...all.result],
    }),
    "extra top-level key",
  );
  refused(
    parseOperationAnswer({
      status: "ok",
      blocks: [{ type: "text", text: "x", color: "red" }],
    }, { result: ["text"] }),
    "extra block key",
  );
  refused(
    parseOperationAnswer({
      status: "ok",
      blocks: [{ type: "html", html: "<b>" }],
    }, {
      result: ["text"],
    }),
    "unknown block type",
  );
  ok(
    parseOperationAnswer({
      status: "refused",
      code: "draft_changed",
      message: "Changed",
    }, {
      result: ["text"],
    }).ok,
  );
});

Deno.test("parseOperationAnswer() refuses http links and blocks of kinds the operation did not declare (PEXT-006)", () => {
  refused(
    parseOperationAnswer({
      status: "ok",
      blocks: [{
        type: "links",
        links: [{ label: "a", url: "http://x.example/" }],
      }],
    }, { result: ["links"] }),
    "http link",
  );
  refused(
    parseOperationAnswer({
      status: "ok",
      blocks: [{
        type: "links",
        links: [{ label: "a", url: "javascript:alert(1)" }],
      }],
    }, { result: ["links"] }),
    "javascript link",
  );
  refused(
    parseOperationAnswer({
      status: "ok",
      blocks: [{ type: "text", text: "x" }],
    }, {
      result: ["rows"],
    }),
    "undeclared kind",
  );
  refused(
    parseOperationAnswer({
      status: "ok",
      blocks: [{
        type: "rows",
        columns: [{ key: "a", label: "A" }],
        rows: [{ b: 1 }],
      }],
    }, { result: ["rows"] }),
    "row with undeclared column",
  );
  refused(
    parseOperationAnswer({
      status: "ok",
      blocks: [{ type: "json", filename: "../etc/passwd", data: {} }],
    }, { result: ["json"] }),
    "json file name",
  );
});

Deno.test("parsePolicyAnswer() accepts allow, warning, refuse and transform; transform only for save/restore on the same entry and language (PEXT-016, PEXT-017)", () => {
  const scope = { kind: "save" as const, entryId: "e1", locale: "en" };
  ok(parsePolicyAnswer({ decision: "allow" }, scope).ok);
  ok(
    parsePolicyAnswer({
      decision: "warning",
      message: "Short",
      fields: ["title"],
    }, scope).ok,
  );
  ok(
    parsePolicyAnswer({
      decision: "refuse",
      code: "no_alt",
      message: "Alt text",
    }, scope).ok,
  );
  ok(
    parsePolicyAnswer({
      decision: "transform",
      entry_id: "e1",
      locale: "en",
      values: { title: "Fixed" },
    }, scope).ok,
  );
  refused(
    parsePolicyAnswer({ decision: "allow", note: 1 }, scope),
    "extra key",
  );
  refused(parsePolicyAnswer({ decision: "maybe" }, scope), "unknown decision");
  refused(
    parsePolicyAnswer(
      { decision: "transform", entry_id: "e2", values: {} },
      scope,
    ),
    "other entry",
  );
  refused(
    parsePolicyAnswer(
      { decision: "transform", locale: "de", values: {} },
      scope,
    ),
    "other language",
  );
  refused(
    parsePolicyAnswer({ decision: "transform", values: { a: 1 } }, {
      ...scope,
      kind: "transition",
    }),
    "transform on a transition policy",
  );
  ok(
    parsePolicyAnswer({ decision: "transform", values: { a: 1 } }, {
      ...scope,
      kind: "restore",
    }).ok,
  );
});

Deno.test("parseMediaSourceAnswer() keeps thumbnails and downloads on the manifest origin and deliveries on declared origins (PEXT-024)", () => {
  const options = {
    manifestOrigin: "https://plugin.example.com",
    source: {
      modes: ["copy", "reference"] as ("copy" | "reference")[],
      delivery_origins: ["https://cdn.example.net"],
    },
  };
  const item = {
    id: "p1",
    title: "Photo",
    thumbnail_url: "https://plugin.example.com/t/p1.jpg",
    download_url: "https://plugin.example.com/d/p1.jpg",
    delivery_url: "https://cdn.example.net/p1.jpg",
  };
  ok(parseMediaSourceAnswer({ items: [item], next_cursor: null }, options).ok);
  for (
    const [label, bad] of [
      ["thumbnail off origin", {
        ...item,
        thumbnail_url: "https://evil.example/t.jpg",
      }],
      ["download off origin", {
        ...item,
        download_url: "https://evil.example/d.jpg",
      }],
      ["delivery off declared origins", {
        ...item,
        delivery_url: "https://plugin.example.com/p1.jpg",
      }],
      ["http thumbnail", {
        ...item,
        thumbnail_url: "http://plugin.example.com/t.jpg",
      }],
      ["extra key", { ...item, secret: "x" }],
      ["neither url", {
        id: "x",
        title: "x",
        thumbnail_url: item.thumbnail_url,
      }],
    ] as const
  ) {
    refused(
      parseMediaSourceAnswer({ items: [bad], next_cursor: null }, options),
      label,
    );
  }
  refused(
    parseMediaSourceAnswer({ items: [item], next_cursor: null }, {
      ...options,
      source: { modes: ["copy"] },
    }),
    "delivery url for a copy-only source",
  );
  const page = Array.from({ length: 24 }, (_, i) => ({ ...item, id: `p${i}` }));
  ok(parseMediaSourceAnswer({ items: page, next_cursor: "c2" }, options).ok);
  refused(
    parseMediaSourceAnswer(
      { items: [...page, item], next_cursor: null },
      options,
    ),
    "25 items",
  );
});
