// The suggestion prefix range: every text starting with the prefix sorts below its end in byte
// order, and the end itself does not start with the prefix (SRCH-011: titles starting first).
import assert from "node:assert/strict";
import { prefixEnd } from "./suggest.ts";

const bytes = new TextEncoder();
function byteCompare(a: string, b: string): number {
  const x = bytes.encode(a);
  const y = bytes.encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i] - y[i];
  }
  return x.length - y.length;
}

Deno.test("prefixEnd moves the last code point up, past surrogates and U+10FFFF", () => {
  assert.equal(prefixEnd(" gar"), " gas");
  assert.equal(prefixEnd(" a\uD7FF"), " a\uE000");
  assert.equal(prefixEnd(" a\u{10FFFF}"), " b");
  assert.equal(prefixEnd(" \u{10FFFF}\u{10FFFF}"), "!");
  assert.equal(prefixEnd(" café"), " cafê");
  assert.throws(() => prefixEnd("\u{10FFFF}"));
});

Deno.test("every text starting with the prefix lies in [prefix, end) in byte order", () => {
  const tails = [
    "",
    "a",
    "\u{10FFFF}",
    "\uFFFF",
    "zzz",
    "\u00e9",
    "\u{1F600}x",
  ];
  for (const prefix of [" gar", " a\uD7FF", " a\u{10FFFF}", " k\u00fc"]) {
    const end = prefixEnd(prefix);
    assert(!end.startsWith(prefix));
    for (const tail of tails) {
      const text = prefix + tail;
      assert(byteCompare(text, prefix) >= 0, `${text} >= ${prefix}`);
      assert(byteCompare(text, end) < 0, `${JSON.stringify(text)} < end`);
    }
  }
});
