// Long on purpose: an import job's steps in the order a job runs them, sharing one world and archive builders.
// Imports: sources, jobs, archive parts at their 5 MiB edge, completion with the SHA-256, the
// plan with its blocking problems and recheck, cancel, artifacts; every refusal changes nothing.
// IMP-001..006, IMP-008, MAPI-016.
import assert from "node:assert/strict";
import { sha256Hex } from "../../core/auth/secrets.ts";
import { IDEMPOTENCY_RETENTION_MS } from "../../core/kv/idempotency_key.ts";
import { IdempotencyStore } from "../../core/kv/idempotency_store.ts";
import { keyDigestOf } from "../../core/manage/idempotency.ts";
import {
  insertPerson,
  PASSWORD,
  setMemberPermissions,
} from "../admin/helpers.ts";
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

const MIB5 = 5 * 1024 * 1024;
const POSTS = "11111111-1111-4111-8111-111111111111";
const TAGS = "22222222-2222-4222-8222-222222222222";

function line(record: unknown): string {
  return `${JSON.stringify(record)}\n`;
}

/** A small archive: tags and posts (posts relate to tags), one tag and one post in en and de. */
function smallArchive(
  options: { postField?: string; end?: boolean } = {},
): Uint8Array {
  const field = (key: string, type: string, config: unknown = {}) => ({
    id: crypto.randomUUID(),
    key,
    label: key,
    type,
    required: false,
    unique: false,
    private: false,
    localized: type !== "relation",
    config: JSON.stringify(config),
    validation: "{}",
    derived: null,
    ui: null,
    visibility: null,
  });
  const model = (id: string, slug: string, fields: unknown[]) => ({
    type: "model",
    id,
    definition: {
      model: {
        name: slug,
        slug,
        description: "",
        kind: "collection",
        isPublic: true,
        enableI18n: true,
        settings: "{}",
      },
      fields,
    },
  });
  const tag = "33333333-3333-4333-8333-333333333333";
  const post = "44444444-4444-4444-8444-444444444444";
  const records = [
    {
      type: "stave-archive",
      version: 1,
      exported_at: "2026-11-01T00:00:00.000Z",
      default_language: "en",
    },
    { type: "language", code: "en" },
    { type: "language", code: "de" },
    model(TAGS, "tags", [field("name", "text")]),
    model(POSTS, "posts", [
      field(options.postField ?? "title", "text"),
      field("tags", "relation", {
        targets: [TAGS],
        cardinality: "many-to-many",
      }),
    ]),
    {
      type: "entry",
      id: tag,
      model_id: TAGS,
      languages: [{
        locale: "en",
        id: "55555555-5555-4555-8555-555555555555",
        slug: "deno",
        published: { name: "Deno" },
        current: null,
      }],
    },
    {
      type: "entry",
      id: post,
      model_id: POSTS,
      languages: [
        {
          locale: "en",
          id: "66666666-6666-4666-8666-666666666666",
          slug: "hello",
          published: { [options.postField ?? "title"]: "Hello", tags: [tag] },
          current: {
            [options.postField ?? "title"]: "Hello again",
            tags: [tag],
          },
        },
        {
          locale: "de",
          id: "77777777-7777-4777-8777-777777777777",
          slug: "hallo",
          published: null,
          current: { [options.postField ?? "title"]: "Hallo", tags: [] },
        },
      ],
    },
  ];
  const text = records.map(line).join("") +
    (options.end === false ? "" : line({
      type: "end",
      counts: { languages: 2, models: 2, media: 0, entries: 2 },
    }));
  return new TextEncoder().encode(text);
}

async function importer(t: ManageFixture) {
  const cred = await t.credential(IMPORT_SCOPES);
  return { id: cred.id, call: callerOf(t, cred.secret) };
}

async function newJob(call: ReturnType<typeof callerOf>) {
  const source = await ok(
    await call("POST", "/imports/sources", {
      body: { name: `s-${crypto.randomUUID()}`, format: "stave-archive" },
      key: key(),
    }),
    201,
  );
  return await ok(
    await call("POST", "/imports", {
      body: { source_id: source.id },
      key: key(),
    }),
    201,
  );
}

Deno.test("IMP-001: import sources are created once per name, listed, closed bodies, replayed by key", () =>
  withManageApp(async (t) => {
    const { call } = await importer(t);
    const body = {
      name: "Old site",
      format: "stave-archive",
      options: { publish: "drafts" },
    };
    const created = await ok(
      await call("POST", "/imports/sources", { body, key: "s1" }),
      201,
    );
    assert.deepEqual(created.options, { publish: "drafts" });
    const replay = await ok(
      await call("POST", "/imports/sources", { body, key: "s1" }),
      201,
    );
    assert.equal(replay.id, created.id);
    assert.equal(replay.replayed, true);
    const taken = await call("POST", "/imports/sources", { body, key: "s2" });
    assert.equal(taken.status, 409);
    assert.equal((await refusal(taken)).code, "import_source_name_taken");
    for (
      const bad of [
        { ...body, extra: 1 },
        { ...body, format: "csv" },
        { ...body, name: "" },
        { ...body, name: "x".repeat(81) },
      ]
    ) {
      const refused = await call("POST", "/imports/sources", {
        body: bad,
        key: key(),
      });
      assert.equal(refused.status, 400);
      assert.equal((await refusal(refused)).code, "invalid_request");
    }
    t.clock.advance(1000);
    const edge = await call("POST", "/imports/sources", {
      body: { ...body, name: "y".repeat(80) },
      key: key(),
    });
    assert.equal(edge.status, 201);
    const list = await ok<{ data: { id: string }[] }>(
      await call("GET", "/imports/sources"),
    );
    assert.equal(list.data.length, 2);
    assert.equal(list.data[0].id, created.id);
  }));

Deno.test("IMP-002, IMP-003: imports are listed newest first with limit, read by id, 404 elsewhere; data:import is required", () =>
  withManageApp(async (t) => {
    const { call } = await importer(t);
    const first = await newJob(call);
    t.clock.advance(1000);
    const second = await newJob(call);
    assert.equal(second.state, "awaiting_archive");
    const one = await ok<{ data: { id: string }[] }>(
      await call("GET", "/imports?limit=1"),
    );
    assert.deepEqual(one.data.map((j) => j.id), [second.id]);
    const all = await ok<{ data: { id: string }[] }>(
      await call("GET", "/imports"),
    );
    assert.deepEqual(all.data.map((j) => j.id), [second.id, first.id]);
    for (const limit of ["0", "101", "x"]) {
      assert.equal((await call("GET", `/imports?limit=${limit}`)).status, 400);
    }
    assert.equal((await call("GET", "/imports?limit=100")).status, 200);
    const read = await ok(await call("GET", `/imports/${first.id}`));
    assert.equal(read.id, first.id);
    assert.equal(
      (await call("GET", `/imports/${crypto.randomUUID()}`)).status,
      404,
    );
    assert.equal((await call("GET", "/imports/not-a-uuid")).status, 404);
    // An export job is not an import.
    const noSource = await call("POST", "/imports", {
      body: { source_id: crypto.randomUUID() },
      key: key(),
    });
    assert.equal(noSource.status, 404);
    const reader = await t.credential(["content:read"]);
    const refused = await t.call("GET", "/imports", { secret: reader.secret });
    assert.equal(refused.status, 403);
    assert.equal((await refusal(refused)).code, "missing_permission");
  }));

Deno.test("IMP-004: archive parts: exactly 5 MiB accepted, one byte more 413, in order, digest, type and number checked", () =>
  withManageApp(async (t) => {
    const { call } = await importer(t);
    const job = await newJob(call);
    const part = (
      n: string,
      bytes: Uint8Array,
      extra: { type?: string; sha?: string } = {},
    ) =>
      call(
        "PUT",
        `/imports/${job.id}/archive/parts/${n}${
          extra.sha ? `?sha256=${extra.sha}` : ""
        }`,
        {
          bytes,
          key: key(),
          type: extra.type,
        },
      );
    const full = new Uint8Array(MIB5).fill(0x20);
    const tooBig = await part("1", new Uint8Array(MIB5 + 1));
    assert.equal(tooBig.status, 413);
    assert.equal((await refusal(tooBig)).code, "payload_too_large");
    const outOfOrder = await part("2", new Uint8Array([1]));
    assert.equal(outOfOrder.status, 409);
    const order = await refusal(outOfOrder);
    assert.equal(order.code, "import_part_out_of_order");
    assert.equal(order.expected_part, 1);
    const wrongDigest = await part("1", full, { sha: "0".repeat(64) });
    assert.equal(wrongDigest.status, 422);
    assert.equal(
      (await refusal(wrongDigest)).code,
      "import_part_digest_mismatch",
    );
    const json = await part("1", new TextEncoder().encode("{}"), {
      type: "application/json",
    });
    assert.equal(json.status, 415);
    const empty = await part("1", new Uint8Array());
    assert.equal(empty.status, 422);
    assert.equal((await refusal(empty)).code, "import_part_invalid");
    for (const bad of ["0", "x", "-1"]) {
      assert.equal((await part(bad, new Uint8Array([1]))).status, 404);
    }
    assert.equal((await part("201", new Uint8Array([1]))).status, 422);
    // Nothing above was stored.
    const after = await ok(await call("GET", `/imports/${job.id}`));
    assert.equal(after.state, "awaiting_archive");
    const accepted = await ok(
      await part("1", full, { sha: await sha256(full) }),
    );
    assert.equal(accepted.bytes, MIB5);
    assert.equal(accepted.parts_received, 1);
    const second = await ok(await part("2", new Uint8Array([0x0a])));
    assert.equal(second.parts_received, 2);
    // Sending a part again replaces it.
    const again = await ok(await part("2", new Uint8Array([0x0a, 0x0a])));
    assert.equal(again.bytes, 2);
    assert.equal(again.parts_received, 2);
  }));

Deno.test("IMP-005: completion checks the parts and the file's SHA-256; a mismatch changes nothing", () =>
  withManageApp(async (t) => {
    const { call } = await importer(t);
    const job = await newJob(call);
    const complete = (body: unknown) =>
      call("POST", `/imports/${job.id}/archive/complete`, { body, key: key() });
    const none = await complete({ sha256: "0".repeat(64) });
    assert.equal(none.status, 422);
    assert.equal((await refusal(none)).code, "import_archive_parts_invalid");
    const archive = smallArchive();
    // A first part shorter than 5 MiB followed by another one is refused at completion.
    await ok(
      await call("PUT", `/imports/${job.id}/archive/parts/1`, {
        bytes: archive.slice(0, 10),
        key: key(),
      }),
    );
    await ok(
      await call("PUT", `/imports/${job.id}/archive/parts/2`, {
        bytes: archive.slice(10),
        key: key(),
      }),
    );
    const short = await complete({ sha256: await sha256(archive) });
    assert.equal(short.status, 422);
    assert.match((await refusal(short)).message, /every part but the last/);
    await ok(
      await call("PUT", `/imports/${job.id}/archive/parts/1`, {
        bytes: archive,
        key: key(),
      }),
    );
    // Part 2 still stands; replace the upload by making a fresh job instead.
    const fresh = await newJob(call);
    await ok(
      await call("PUT", `/imports/${fresh.id}/archive/parts/1`, {
        bytes: archive,
        key: key(),
      }),
    );
    const wrong = await call("POST", `/imports/${fresh.id}/archive/complete`, {
      body: { sha256: "0".repeat(64) },
      key: key(),
    });
    assert.equal(wrong.status, 422);
    const mismatch = await refusal(wrong);
    assert.equal(mismatch.code, "import_archive_digest_mismatch");
    assert.equal(mismatch.sha256, await sha256(archive));
    const count = await call("POST", `/imports/${fresh.id}/archive/complete`, {
      body: { sha256: await sha256(archive), parts: 2 },
      key: key(),
    });
    assert.equal(count.status, 422);
    const still = await ok(await call("GET", `/imports/${fresh.id}`));
    assert.equal(still.state, "awaiting_archive");
    assert.equal(still.position, 0);
    const done = await ok(
      await call("POST", `/imports/${fresh.id}/archive/complete`, {
        body: { sha256: await sha256(archive), parts: 1 },
        key: key(),
      }),
    );
    assert.equal(done.state, "archive_received");
    assert.deepEqual(done.file, {
      bytes: archive.byteLength,
      sha256: await sha256(archive),
      pages: 1,
    });
    const closed = await call("PUT", `/imports/${fresh.id}/archive/parts/2`, {
      bytes: archive,
      key: key(),
    });
    assert.equal(closed.status, 409);
    assert.equal((await refusal(closed)).code, "import_archive_closed");
  }));

Deno.test("IMP-006: advance plans, imports in steps, publishes, keeps newer drafts and writes the receipt", () =>
  withManageApp(async (t) => {
    const { call } = await importer(t);
    const early = await newJob(call);
    const notYet = await call("POST", `/imports/${early.id}/advance`, {
      key: key(),
    });
    assert.equal(notYet.status, 409);
    assert.equal((await refusal(notYet)).code, "import_archive_incomplete");
    const received = await startImport(call, smallArchive());
    const notReady = await call(
      "GET",
      `/imports/${received.id}/artifacts/problems`,
    );
    assert.equal(notReady.status, 409);
    assert.equal((await refusal(notReady)).code, "artifact_not_ready");
    const done = await runImport(call, received.id as string);
    assert.equal(done.state, "completed", JSON.stringify(done.problems));
    assert.equal(done.phase, null);
    assert.ok((done.position as number) >= 8);
    assert.deepEqual(done.counts, {
      models_created: 2,
      entries_created: 2,
      languages_published: 2,
    });
    const posts = await ok<{ data: { id: string }[] }>(
      await call("GET", "/models"),
    );
    assert.equal(posts.data.length, 2);
    const finished = await call("POST", `/imports/${received.id}/advance`, {
      key: key(),
    });
    assert.equal(finished.status, 409);
    assert.equal((await refusal(finished)).code, "import_finished");
    const receipt = await ok<
      { content_base64: string; sha256: string; total: number; next_page: null }
    >(
      await call("GET", `/imports/${received.id}/artifacts/receipt`),
    );
    const text = atob(receipt.content_base64);
    assert.equal(await sha256(new TextEncoder().encode(text)), receipt.sha256);
    const ids = JSON.parse(text).ids as Record<string, string>;
    const postId = ids["44444444-4444-4444-8444-444444444444"];
    // The post: published "Hello" with its tag, a newer draft "Hello again"; German a draft.
    const rows = await t.services.db.selectFrom("entries")
      .leftJoin("entry_versions as cur", "cur.id", "entries.current_version_id")
      .leftJoin(
        "entry_versions as pub",
        "pub.id",
        "entries.published_version_id",
      )
      .select([
        "entries.locale",
        "cur.fields as current",
        "pub.fields as published",
      ])
      .where("entries.group_id", "=", postId).orderBy("entries.locale")
      .execute();
    const tagId = ids["33333333-3333-4333-8333-333333333333"];
    assert.deepEqual(rows.map((r) => [r.locale, r.published, r.current]), [
      ["de", null, { title: "Hallo", tags: [] }],
      ["en", { title: "Hello", tags: [tagId] }, {
        title: "Hello again",
        tags: [tagId],
      }],
    ]);
    const page2 = await call(
      "GET",
      `/imports/${received.id}/artifacts/receipt?page=2`,
    );
    assert.equal(page2.status, 404);
  }));

Deno.test("IMP-006: a cut or malformed archive fails the import with the line; nothing is imported", () =>
  withManageApp(async (t) => {
    const { call } = await importer(t);
    const cut = await startImport(call, smallArchive({ end: false }));
    const failed = await ok(
      await call("POST", `/imports/${cut.id}/advance`, { key: key() }),
    );
    assert.equal(failed.state, "failed");
    assert.match((failed.error as { message: string }).message, /cut short/);
    const garbage = new TextEncoder().encode(
      '{"type":"stave-archive","version":1}\nnot json\n',
    );
    const bad = await startImport(call, garbage);
    const badJob = await ok(
      await call("POST", `/imports/${bad.id}/advance`, { key: key() }),
    );
    assert.equal(badJob.state, "failed");
    const problems = badJob.problems as { line: number; code: string }[];
    assert.equal(problems[0].line, 1);
    assert.ok(problems.some((p) => p.line === 2));
    const invalidUtf8 = await startImport(
      call,
      new Uint8Array([0xff, 0xfe, 0x0a]),
    );
    const utf = await ok(
      await call("POST", `/imports/${invalidUtf8.id}/advance`, { key: key() }),
    );
    assert.equal(utf.state, "failed");
    const page = await ok<{ content_base64: string }>(
      await call("GET", `/imports/${bad.id}/artifacts/problems`),
    );
    assert.match(atob(page.content_base64), /"line":2/);
    const models = await ok<{ data: unknown[] }>(await call("GET", "/models"));
    assert.deepEqual(models.data, []);
  }));

Deno.test("IMP-006: a plan blocked by a model that differs here waits for recheck; cancel stops a job", () =>
  withManageApp(async (t) => {
    const { call } = await importer(t);
    // The site already has "posts" with a different field, so the archive's posts do not fit.
    const made = await call("POST", "/models", {
      body: {
        definition: {
          model: { name: "Posts", slug: "posts", enableI18n: true },
          fields: [{ key: "headline", label: "Headline", type: "text" }],
        },
      },
      key: key(),
    });
    assert.equal(made.status, 201, await made.clone().text());
    const received = await startImport(call, smallArchive());
    const blocked = await runImport(call, received.id as string);
    assert.equal(blocked.state, "blocked");
    const problem =
      (blocked.problems as { code: string; message: string }[])[0];
    assert.equal(problem.code, "import_model_mismatch");
    assert.match(problem.message, /no field "title"/);
    const again = await call("POST", `/imports/${received.id}/advance`, {
      key: key(),
    });
    assert.equal(again.status, 409);
    assert.equal((await refusal(again)).code, "import_blocked");
    // Fix the site: posts gets a title and tags field; recheck plans again and the import runs.
    const { model_id } = await made.json();
    const model = await ok<
      {
        model_id: string;
        revision: number;
        definition: { fields: { id: string }[] };
      }
    >(
      await call("GET", `/models/${model_id}`),
    );
    const fixed = await call("PUT", `/models/${model.model_id}/definition`, {
      body: {
        expected_revision: model.revision,
        definition: {
          model: { name: "Posts", slug: "posts", enableI18n: true },
          fields: [
            {
              id: model.definition.fields[0].id,
              key: "headline",
              label: "Headline",
              type: "text",
            },
            { key: "title", label: "Title", type: "text", localized: true },
            {
              key: "tags",
              label: "Tags",
              type: "relation",
              config: {
                targets: [model.model_id],
                cardinality: "many-to-many",
              },
            },
          ],
        },
      },
      key: key(),
    });
    assert.equal(fixed.status, 200, await fixed.clone().text());
    const rechecked = await ok(
      await call("POST", `/imports/${received.id}/advance?recheck=true`, {
        key: key(),
      }),
    );
    assert.equal(rechecked.state, "ready", JSON.stringify(rechecked.problems));
    const plan = rechecked.plan as {
      models: { slug: string; action: string }[];
    };
    assert.deepEqual(plan.models.map((m) => [m.slug, m.action]), [[
      "tags",
      "create",
    ], ["posts", "match"]]);
    assert.equal(
      (await call("POST", `/imports/${received.id}/advance?recheck=maybe`, {
        key: key(),
      })).status,
      400,
    );
    const canceled = await ok(
      await call("POST", `/imports/${received.id}/cancel`, { key: key() }),
    );
    assert.equal(canceled.state, "canceled");
    const after = await call("POST", `/imports/${received.id}/advance`, {
      key: key(),
    });
    assert.equal((await refusal(after)).code, "import_finished");
    const cancelAgain = await call("POST", `/imports/${received.id}/cancel`, {
      key: key(),
    });
    assert.equal(cancelAgain.status, 409);
  }));

/** Claims `key` as a first request that then died: the claim stays without an answer. */
async function strandClaim(
  t: ManageFixture,
  credentialId: string,
  key: string,
  request: { method: string; path: string },
): Promise<string> {
  const store = new IdempotencyStore(t.services.kv, { clock: t.clock });
  const scope = ["manage", t.siteId, credentialId];
  const claimed = await store.claim({ scope, key }, {
    method: request.method,
    path: `/api/manage/v1${request.path}`,
    bodyDigest: await sha256Hex(""),
    retentionMs: IDEMPOTENCY_RETENTION_MS,
  });
  assert.ok(claimed.ok && !claimed.replayed);
  return await keyDigestOf(scope, key);
}

Deno.test("IMP-008, MAPI-016: a retried step after a lost answer: moved job -> its state replayed; errored -> rerun; running -> held", () =>
  withManageApp(async (t) => {
    const { id: credentialId, call } = await importer(t);
    const received = await startImport(call, smallArchive());
    const path = `/imports/${received.id}/advance`;
    const step = (
      digest: string,
      from: number,
      status: "running" | "errored",
    ) =>
      t.services.db.insertInto("data_job_steps").values({
        job_id: received.id as string,
        key_digest: digest,
        from_position: from,
        status,
        created_at: t.clock.now(),
      }).execute();
    const position = async () =>
      (await ok(await call("GET", `/imports/${received.id}`)))
        .position as number;

    // Moved: the lost step ran (position p -> p+1) and another step ran after it.
    const p0 = await position();
    const moved = await strandClaim(t, credentialId, "lost-1", {
      method: "POST",
      path,
    });
    await step(moved, p0, "running");
    await ok(await call("POST", path, { key: key() }));
    t.clock.advance(60_000);
    const replay = await ok(await call("POST", path, { key: "lost-1" }));
    assert.equal(replay.replayed, true);
    assert.equal(replay.position, p0 + 1);
    assert.equal(await position(), p0 + 1);

    // Errored: the lost step failed before moving the job; the retry runs it.
    const errored = await strandClaim(t, credentialId, "lost-2", {
      method: "POST",
      path,
    });
    await step(errored, p0 + 1, "errored");
    t.clock.advance(60_000);
    const rerun = await ok(await call("POST", path, { key: "lost-2" }));
    assert.equal(rerun.replayed, undefined);
    assert.equal(rerun.position, p0 + 2);

    // Running with the job not moved: advancing an import is held, never run twice.
    const running = await strandClaim(t, credentialId, "lost-3", {
      method: "POST",
      path,
    });
    await step(running, p0 + 2, "running");
    t.clock.advance(60_000);
    const held = await call("POST", path, { key: "lost-3" });
    assert.equal(held.status, 409);
    const heldBody = await refusal(held);
    assert.equal(heldBody.code, "idempotency_in_progress");
    // MAPI-013: a claim nothing can settle stays pending: 409 without Retry-After.
    assert.equal(held.headers.get("retry-after"), null);
    assert.equal(await position(), p0 + 2);

    // No step began under the key: the retry runs it.
    await strandClaim(t, credentialId, "lost-4", { method: "POST", path });
    t.clock.advance(60_000);
    const fresh = await ok(await call("POST", path, { key: "lost-4" }));
    assert.equal(fresh.position, p0 + 3);

    // A step of the job already running: job_busy with Retry-After, nothing moves.
    await t.services.db.updateTable("data_jobs")
      .set({ busy_until: new Date(t.clock.now().getTime() + 30_000) })
      .where("id", "=", received.id as string).execute();
    const busy = await call("POST", path, { key: key() });
    assert.equal(busy.status, 409);
    assert.equal((await refusal(busy)).code, "job_busy");
    assert.equal(busy.headers.get("retry-after"), "30");
    t.clock.advance(31_000);
    assert.equal((await call("POST", path, { key: key() })).status, 200);
  }));

Deno.test("IMP-006, MCR-023: the plan blocks an import the credential could not finish; a drafts source publishes nothing", () =>
  withManageApp(async (t) => {
    const cred = await t.credential([
      "data:import",
      "schema:write",
      "content:write",
    ]);
    const call = callerOf(t, cred.secret);
    const received = await startImport(call, smallArchive());
    const blocked = await runImport(call, received.id as string);
    assert.equal(blocked.state, "blocked");
    const problems = blocked.problems as { code: string; message: string }[];
    assert.deepEqual(problems.map((p) => p.code), [
      "missing_permission",
      "missing_permission",
    ]);
    assert.match(
      problems[0].message,
      /may not publish entries of model "tags"/,
    );
    const drafts = await startImport(call, smallArchive(), {
      publish: "drafts",
    });
    const done = await runImport(call, drafts.id as string);
    assert.equal(done.state, "completed", JSON.stringify(done.problems));
    const published = await t.services.db.selectFrom("entries").select("id")
      .where("site_id", "=", t.siteId).where(
        "published_version_id",
        "is not",
        null,
      )
      .execute();
    assert.deepEqual(published, []);
  }));

Deno.test("MCR-023: an import whose creator may not create entries of a model is blocked before anything is written", () =>
  withManageApp(async (t) => {
    const personId = await insertPerson(t.services.db, {
      email: "importer@manage.test",
      password: PASSWORD,
      siteIds: [t.siteId],
    });
    await setMemberPermissions(t.services.db, personId, {
      models: { "*": ["read", "update"] },
      system: ["data:import", "model:apply", "media:upload"],
    });
    const cred = await t.credential(IMPORT_SCOPES, { creatorId: personId });
    const call = callerOf(t, cred.secret);
    const received = await startImport(call, smallArchive(), {
      publish: "drafts",
    });
    const blocked = await runImport(call, received.id as string);
    assert.equal(blocked.state, "blocked");
    const problems = blocked.problems as { code: string; message: string }[];
    assert.ok(problems.length >= 2);
    assert.ok(problems.every((p) => p.code === "missing_permission"));
    assert.match(problems[0].message, /may not create entries of model "tags"/);
    const models = await t.services.db.selectFrom("models").select("id")
      .where("site_id", "=", t.siteId).execute();
    assert.deepEqual(models, []);
  }));
