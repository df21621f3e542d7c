// Imports hold every archive line and value to the limits of the route that would write it
// (issue 39 item 2): a bad line fails the job with a named problem, never a 500 or a job left
// in archive_received. IMP-006.
import assert from "node:assert/strict";
import { ARCHIVE_VALUE_LIMIT } from "../../core/data/archive.ts";
import { pngClaiming } from "../../core/media/png.ts";
import {
  type ManageFixture,
  refusal,
  withManageApp,
} from "../manage/helpers.ts";
import {
  callerOf,
  IMPORT_SCOPES,
  key,
  ok,
  runImport,
  sha256,
  startImport,
} from "./helpers.ts";

const MODEL = "11111111-1111-4111-8111-111111111111";
const ENTRY = "22222222-2222-4222-8222-222222222222";
const LANGUAGE = "33333333-3333-4333-8333-333333333333";
const MEDIA = "44444444-4444-4444-8444-444444444444";

const header = {
  type: "stave-archive",
  version: 1,
  exported_at: "2026-11-01T00:00:00.000Z",
  default_language: "en",
};
const posts = {
  type: "model",
  id: MODEL,
  definition: {
    model: { name: "Posts", slug: "posts", enableI18n: true, settings: "{}" },
    fields: [{
      id: crypto.randomUUID(),
      key: "title",
      label: "Title",
      type: "text",
      localized: true,
      config: "{}",
    }],
  },
};
const post = (title: string) => ({
  type: "entry",
  id: ENTRY,
  model_id: MODEL,
  languages: [{
    locale: "en",
    id: LANGUAGE,
    slug: "hello",
    published: { title },
    current: null,
  }],
});

function archive(records: unknown[], counts: Record<string, number>) {
  const all = [header, { type: "language", code: "en" }, ...records, {
    type: "end",
    counts: { languages: 1, models: 0, media: 0, entries: 0, ...counts },
  }];
  return new TextEncoder().encode(
    all.map((r) => `${JSON.stringify(r)}\n`).join(""),
  );
}

async function importer(t: ManageFixture) {
  const cred = await t.credential(IMPORT_SCOPES);
  return callerOf(t, cred.secret);
}

/** Title length whose POST /entries body is exactly the route's limit. */
const edgeTitle = ARCHIVE_VALUE_LIMIT - JSON.stringify({
  model_id: MODEL,
  locale: "en",
  slug: "hello",
  fields: { title: "" },
}).length;

Deno.test("IMP-006: an entry whose values are exactly the POST /entries body limit imports; one byte more fails the job with import_value_too_large", () =>
  withManageApp(async (t) => {
    const call = await importer(t);
    const over = await startImport(
      call,
      archive([posts, post("x".repeat(edgeTitle + 1))], {
        models: 1,
        entries: 1,
      }),
    );
    const failed = await ok(
      await call("POST", `/imports/${over.id}/advance`, { key: key() }),
    );
    assert.equal(failed.state, "failed");
    assert.deepEqual(failed.error, {
      code: "import_value_too_large",
      message: `Line 4: languages.0.published: the values are ${
        ARCHIVE_VALUE_LIMIT + 1
      } bytes as a POST /entries body; the most is ${ARCHIVE_VALUE_LIMIT}`,
    });
    assert.deepEqual(
      (failed.problems as { code: string; line: number }[]).map((p) => [
        p.code,
        p.line,
      ]),
      [["import_value_too_large", 4]],
    );
    const again = await call("POST", `/imports/${over.id}/advance`, {
      key: key(),
    });
    assert.equal((await refusal(again)).code, "import_finished");
    // Nothing was imported.
    assert.deepEqual(
      (await ok<{ data: unknown[] }>(await call("GET", "/models"))).data,
      [],
    );

    const edge = await startImport(
      call,
      archive([posts, post("x".repeat(edgeTitle))], {
        models: 1,
        entries: 1,
      }),
    );
    const done = await runImport(call, edge.id as string);
    assert.equal(done.state, "completed", JSON.stringify(done.problems));
    assert.deepEqual(done.counts, {
      models_created: 1,
      entries_created: 1,
      languages_published: 1,
    });
  }));

Deno.test("IMP-006: a 12 MiB title, a NUL in a media file name and a lone surrogate fail the job with named problems, never a 500 or a stuck job", () =>
  withManageApp(async (t) => {
    const call = await importer(t);
    const cases: [unknown, Record<string, number>, string, string][] = [
      [
        post("t".repeat(12 * 1024 * 1024)),
        { models: 1, entries: 1 },
        "import_value_too_large",
        "languages.0.published",
      ],
      [
        {
          type: "media",
          id: MEDIA,
          file_name: "photo\u0000.png",
          alt_texts: {},
          sha256: "0".repeat(64),
          content_base64: "AAAA",
        },
        { models: 1, media: 1 },
        "import_text_invalid",
        "file_name: contains NUL",
      ],
      [
        post("\ud800"),
        { models: 1, entries: 1 },
        "import_text_invalid",
        "languages.0.published.title: contains a lone surrogate",
      ],
    ];
    for (const [record, counts, code, where] of cases) {
      const job = await startImport(call, archive([posts, record], counts));
      const answer = await call("POST", `/imports/${job.id}/advance`, {
        key: key(),
      });
      const failed = await ok(answer);
      assert.equal(failed.state, "failed");
      const error = failed.error as { code: string; message: string };
      assert.equal(error.code, code);
      assert.ok(error.message.startsWith(`Line 4: ${where}`), error.message);
      assert.equal(failed.problem_count, 1);
      const read = await ok(await call("GET", `/imports/${job.id}`));
      assert.equal(read.state, "failed");
    }
    assert.deepEqual(
      (await ok<{ data: unknown[] }>(await call("GET", "/models"))).data,
      [],
    );
    const media = await t.services.db.selectFrom("media_files").select("id")
      .where("site_id", "=", t.siteId).execute();
    assert.deepEqual(media, []);
  }));

Deno.test("IMP-006: an archived image whose header claims more than the pixel ceiling is refused like an upload (unsupported_media_type), the rest imports", () =>
  withManageApp(async (t) => {
    const call = await importer(t);
    const bytes = pngClaiming(100_000, 100_000);
    const job = await startImport(
      call,
      archive([{
        type: "media",
        id: MEDIA,
        file_name: "bomb.png",
        alt_texts: {},
        sha256: await sha256(bytes),
        content_base64: btoa(String.fromCharCode(...bytes)),
      }], { media: 1 }),
    );
    const done = await runImport(call, job.id as string);
    assert.equal(done.state, "completed");
    assert.deepEqual(
      (done.problems as { code: string; id: string }[]).map((p) => [
        p.code,
        p.id,
      ]),
      [["unsupported_media_type", MEDIA]],
    );
    const media = await t.services.db.selectFrom("media_files").select("id")
      .where("site_id", "=", t.siteId).execute();
    assert.deepEqual(media, []);
  }));
