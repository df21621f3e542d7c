// The archive line reader and line checks at their edges: line length, value sizes, text
// PostgreSQL cannot store (issue 39 item 2).
import assert from "node:assert/strict";
import {
  ARCHIVE_LINE_LIMIT,
  ARCHIVE_MEDIA_BASE64_LIMIT,
  ARCHIVE_VALUE_LIMIT,
  type ArchiveLine,
  decodeLine,
  forEachLine,
} from "./archive.ts";

async function* chunksOf(bytes: Uint8Array, size: number) {
  for (let at = 0; at < bytes.byteLength; at += size) {
    yield bytes.subarray(at, at + size);
  }
}

async function linesOf(
  bytes: Uint8Array,
  options: { chunk?: number; max?: number } = {},
): Promise<ArchiveLine[]> {
  const out: ArchiveLine[] = [];
  await forEachLine(
    chunksOf(bytes, options.chunk ?? 7),
    (line) => {
      // Only lengths are kept, so the test itself holds no second copy of a huge line.
      out.push(line.ok ? { ...line, text: `${line.text.length}` } : line);
      return Promise.resolve();
    },
    options.max,
  );
  return out;
}

const encode = (text: string) => new TextEncoder().encode(text);

Deno.test("forEachLine() hands over a line of exactly the limit and refuses one byte more, across chunks", async () => {
  const lines = await linesOf(
    encode(`${"a".repeat(10)}\n\n${"b".repeat(11)}\nccc`),
    { max: 10 },
  );
  assert.deepEqual(lines, [
    { line: 1, ok: true, text: "10" },
    {
      line: 3,
      ok: false,
      problem: {
        code: "import_line_too_long",
        line: 3,
        message: "the line is 11 bytes; the most a line may hold is 10",
      },
    },
    { line: 4, ok: true, text: "3" },
  ]);
});

Deno.test("forEachLine() at the real line limit: the longest line is read, one byte more is refused unread", async () => {
  const bytes = new Uint8Array(ARCHIVE_LINE_LIMIT * 2 + 3).fill(0x61);
  bytes[ARCHIVE_LINE_LIMIT] = 0x0a;
  bytes[ARCHIVE_LINE_LIMIT * 2 + 2] = 0x0a;
  const lines = await linesOf(bytes, { chunk: 5 * 1024 * 1024 });
  assert.equal(lines.length, 2);
  assert.deepEqual(lines[0], {
    line: 1,
    ok: true,
    text: `${ARCHIVE_LINE_LIMIT}`,
  });
  assert.equal(lines[1].ok, false);
  assert.equal(
    !lines[1].ok && lines[1].problem.code,
    "import_line_too_long",
  );
});

Deno.test("forEachLine() names a line that is not UTF-8 and reads on", async () => {
  const bytes = new Uint8Array([
    0x7b,
    0x7d,
    0x0a,
    0xff,
    0xfe,
    0x0a,
    0x7b,
    0x7d,
  ]);
  const lines = await linesOf(bytes, { chunk: 2 });
  assert.deepEqual(lines.map((l) => l.ok ? l.line : l.problem.code), [
    1,
    "import_text_invalid",
    3,
  ]);
});

const MODEL = "11111111-1111-4111-8111-111111111111";
const entryLine = (fields: Record<string, unknown>) => ({
  type: "entry",
  id: "22222222-2222-4222-8222-222222222222",
  model_id: MODEL,
  languages: [{
    locale: "en",
    id: "33333333-3333-4333-8333-333333333333",
    slug: "hello",
    published: null,
    current: fields,
  }],
});
/** The body of POST /entries carrying `title` = `n` characters. */
const entryBodyBytes = (n: number) =>
  JSON.stringify({
    model_id: MODEL,
    locale: "en",
    slug: "hello",
    fields: { title: "x".repeat(n) },
  }).length;

Deno.test("decodeLine() holds entry values to the POST /entries body limit: the last byte accepted, the next refused", () => {
  const n = ARCHIVE_VALUE_LIMIT - entryBodyBytes(0);
  assert.equal(entryBodyBytes(n), ARCHIVE_VALUE_LIMIT);
  const edge = decodeLine(
    JSON.stringify(entryLine({ title: "x".repeat(n) })),
    2,
  );
  assert.equal(edge.ok, true);
  const over = decodeLine(
    JSON.stringify(entryLine({ title: "x".repeat(n + 1) })),
    2,
  );
  assert.equal(!over.ok && over.problem.code, "import_value_too_large");
  assert.match(!over.ok ? over.problem.message : "", /languages\.0\.current/);
});

Deno.test("decodeLine() holds a media file to the upload limit and a model to the POST /models limit", () => {
  const media = (base64: string) =>
    JSON.stringify({
      type: "media",
      id: "44444444-4444-4444-8444-444444444444",
      file_name: "a.png",
      alt_texts: {},
      sha256: "0".repeat(64),
      content_base64: base64,
    });
  assert.equal(
    decodeLine(media("A".repeat(ARCHIVE_MEDIA_BASE64_LIMIT)), 2).ok,
    true,
  );
  const big = decodeLine(media("A".repeat(ARCHIVE_MEDIA_BASE64_LIMIT + 1)), 2);
  assert.equal(!big.ok && big.problem.code, "import_value_too_large");
  const model = (description: string) => ({
    type: "model",
    id: MODEL,
    definition: {
      model: { name: "Posts", slug: "posts", description },
      fields: [],
    },
  });
  const bodyOf = (d: string) =>
    JSON.stringify({ definition: model(d).definition }).length;
  const n = ARCHIVE_VALUE_LIMIT - bodyOf("");
  assert.equal(
    decodeLine(JSON.stringify(model("d".repeat(n))), 2).ok,
    true,
  );
  const over = decodeLine(JSON.stringify(model("d".repeat(n + 1))), 2);
  assert.equal(!over.ok && over.problem.code, "import_value_too_large");
});

Deno.test("decodeLine() refuses NUL and lone surrogates anywhere, naming the path, and keys the routes refuse", () => {
  const nul = decodeLine(
    JSON.stringify({
      type: "media",
      id: "44444444-4444-4444-8444-444444444444",
      file_name: "a\u0000.png",
      alt_texts: {},
      sha256: "0".repeat(64),
      content_base64: "",
    }),
    3,
  );
  assert.deepEqual(!nul.ok && nul.problem, {
    code: "import_text_invalid",
    line: 3,
    message: "file_name: contains NUL",
  });
  const surrogate = decodeLine(
    JSON.stringify(entryLine({ title: "\ud800" })),
    4,
  );
  assert.equal(
    !surrogate.ok && surrogate.problem.message,
    "languages.0.current.title: contains a lone surrogate",
  );
  const deep = decodeLine(`${"[".repeat(100)}${"]".repeat(100)}`, 2);
  assert.equal(!deep.ok && deep.problem.code, "import_archive_invalid");
  const proto = decodeLine(
    '{"type":"language","code":"en","__proto__":{}}',
    2,
  );
  assert.equal(!proto.ok && proto.problem.code, "import_archive_invalid");
  const code = decodeLine('{"type":"language","code":"EN GB"}', 2);
  assert.equal(!code.ok && code.problem.code, "import_archive_invalid");
});
