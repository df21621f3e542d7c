// Plugin blocks in rich text: unregistered, newer version, invalid values, group limits at their edge (PEXT-009, PEXT-027).
import { deepEqual, equal, ok } from "node:assert/strict";
import { checkRichBlock } from "./rich_blocks.ts";
import { type ManifestRichBlock, parseManifest } from "./manifest.ts";
import { fullManifest } from "./_testing.ts";

const parsed = parseManifest(fullManifest(), {
  manifestUrl: "https://plugin.example.com/svc/manifest.json",
});
if (!parsed.ok) throw new Error("the full manifest fixture must parse");
const blocks = parsed.manifest.rich_blocks;
const blocksOf = (id: string): readonly ManifestRichBlock[] | undefined =>
  id === "com.example.scheduling" ? blocks : undefined;

function stored(values: Record<string, unknown>, version = 2) {
  return { block: "com.example.scheduling", type: "quote", version, values };
}

Deno.test("checkRichBlock() accepts declared values and refuses an unregistered block or a newer version (PEXT-027)", () => {
  const good = checkRichBlock(stored({ text: "Hi", by: "Ada" }), blocksOf);
  ok(good.ok);
  equal(
    checkRichBlock({ ...stored({ text: "x" }), block: "com.other" }, blocksOf)
      .ok,
    false,
  );
  const unknownType = checkRichBlock(
    { ...stored({ text: "x" }), type: "nope" },
    blocksOf,
  );
  equal(!unknownType.ok && unknownType.code, "rich_block_unregistered");
  const newer = checkRichBlock(stored({ text: "x" }, 3), blocksOf);
  equal(!newer.ok && newer.code, "rich_block_version_unknown");
});

Deno.test("checkRichBlock() migrates an older version forward before validating", () => {
  const old = checkRichBlock(
    stored({ text: "Hi", author: "Ada" }, 1),
    blocksOf,
  );
  ok(old.ok);
  if (old.ok) {
    deepEqual(old.values, { text: "Hi", by: "Ada" });
    equal(old.version, 2);
  }
});

Deno.test("checkRichBlock() refuses values the declaration refuses, naming the path (rich_block_values_invalid)", () => {
  const cases: [Record<string, unknown>, string][] = [
    [{}, "text"],
    [{ text: 5 }, "text"],
    [{ text: "x", extra: 1 }, "extra"],
    [{ text: "x", link: "http://x.example" }, "link"],
    [{ text: "x", notes: "no" }, "notes"],
    [
      { text: "x", notes: [{ lines: [{ parts: [{ word: 1 }] }] }] },
      "notes.0.lines.0.parts.0.word",
    ],
    [{ text: "x", notes: [{ bogus: true }] }, "notes.0.bogus"],
    // The rule: by is required when link is "".
    [{ text: "x", link: "" }, "by"],
  ];
  for (const [values, path] of cases) {
    const result = checkRichBlock(stored(values), blocksOf);
    equal(result.ok, false, JSON.stringify(values));
    if (!result.ok) {
      equal(result.code, "rich_block_values_invalid");
      ok(
        result.issues.some((i) => i.path === path),
        JSON.stringify(result.issues),
      );
    }
  }
});

Deno.test("checkRichBlock() takes 50 group items and refuses 51 (PEXT-009)", () => {
  const items = (n: number) => Array.from({ length: n }, () => ({ lines: [] }));
  ok(
    checkRichBlock(stored({ text: "x", by: "y", notes: items(50) }), blocksOf)
      .ok,
  );
  const over = checkRichBlock(
    stored({ text: "x", by: "y", notes: items(51) }),
    blocksOf,
  );
  equal(!over.ok && over.code, "rich_block_values_invalid");
  if (!over.ok) {
    deepEqual(over.issues[0], { path: "notes", message: "At most 50 items" });
  }
  // A nested group's own limit (10 lines) holds at its edge too.
  const lines = (
    n: number,
  ) => [{ lines: Array.from({ length: n }, () => ({ parts: [] })) }];
  ok(
    checkRichBlock(stored({ text: "x", by: "y", notes: lines(10) }), blocksOf)
      .ok,
  );
  equal(
    checkRichBlock(stored({ text: "x", by: "y", notes: lines(11) }), blocksOf)
      .ok,
    false,
  );
});
