// Site settings documents: defaults, closed validation, language checks and revision pins.
import { deepEqual, equal } from "node:assert/strict";
import { ManualClock } from "../clock.ts";
import { openTestDb } from "../../tests/support/db.ts";
import { insertSite } from "../../tests/support/sites.ts";
import { localeChain } from "./locale_chain.ts";
import { getSettings, putSettings } from "./settings.ts";
import { SETTINGS_DEFAULTS } from "./settings_documents.ts";

async function withSite(
  fn: (ctx: Parameters<typeof putSettings>[0]) => Promise<void>,
) {
  const { db, close } = await openTestDb();
  try {
    const siteId = await insertSite(db, {
      domain: "s.test",
      languages: ["en", "de", "fr"],
    });
    await fn({ db, clock: new ManualClock(), siteId, personId: null });
  } finally {
    await close();
  }
}

Deno.test("getSettings() answers the defaults with revision 0 before any change", async () => {
  await withSite(async (ctx) => {
    const seo = await getSettings(ctx, "seo");
    deepEqual(seo, {
      key: "seo",
      document: SETTINGS_DEFAULTS.seo,
      revision: 0,
      updated_at: null,
    });
  });
});

Deno.test("putSettings() stores a valid document and bumps the revision; a stale pin is refused with conflict", async () => {
  await withSite(async (ctx) => {
    const doc = { policy: "fallback", chains: { de: ["fr"], fr: [] } };
    const first = await putSettings(ctx, "language-fallback", {
      document: doc,
      expectedRevision: 0,
    });
    equal(first.ok, true);
    equal((await getSettings(ctx, "language-fallback")).revision, 1);
    const stale = await putSettings(ctx, "language-fallback", {
      document: doc,
      expectedRevision: 0,
    });
    deepEqual(stale, { ok: false, code: "conflict", current_revision: 1 });
    deepEqual((await getSettings(ctx, "language-fallback")).document, doc);
  });
});

Deno.test("putSettings() of two concurrent writers with one pin lets exactly one win", async () => {
  await withSite(async (ctx) => {
    const doc = (review_required: boolean) => ({
      version_retention_days: 30,
      review_required,
    });
    const results = await Promise.all([
      putSettings(ctx, "editorial", {
        document: doc(true),
        expectedRevision: 0,
      }),
      putSettings(ctx, "editorial", {
        document: doc(false),
        expectedRevision: 0,
      }),
    ]);
    equal(results.filter((r) => r.ok).length, 1);
    equal(results.filter((r) => !r.ok && r.code === "conflict").length, 1);
    equal((await getSettings(ctx, "editorial")).revision, 1);
  });
});

Deno.test("putSettings() refuses unknown keys, unknown languages and self-fallback, changing nothing", async () => {
  await withSite(async (ctx) => {
    const unknownKey = await putSettings(ctx, "search", {
      document: { enabled: true, types: [], extra: 1 },
      expectedRevision: 0,
    });
    equal(unknownKey.ok, false);
    equal(!unknownKey.ok && unknownKey.code, "input_invalid");
    const languages = await putSettings(ctx, "language-fallback", {
      document: {
        policy: "fallback",
        chains: { it: ["en"], de: ["de", "xx"] },
      },
      expectedRevision: 0,
    });
    deepEqual(
      languages.ok
        ? []
        : "problems" in languages
        ? languages.problems.map((p) => p.path)
        : [],
      [
        "chains.it",
        "chains.de.0",
        "chains.de.1",
      ],
    );
    equal((await getSettings(ctx, "language-fallback")).revision, 0);
  });
});

Deno.test("search settings accept 16 types of 16 fields with weights 1..10 and refuse the 17th and weight 11", async () => {
  await withSite(async (ctx) => {
    const fields = (n: number, weight = 5) =>
      Array.from({ length: n }, (_, i) => ({ field: `f${i}`, weight }));
    const types = (n: number, f = 16) =>
      Array.from(
        { length: n },
        (_, i) => ({ model: `m${i}`, fields: fields(f) }),
      );
    const put = (document: unknown, expectedRevision: number) =>
      putSettings(ctx, "search", { document, expectedRevision });
    equal((await put({ enabled: true, types: types(16) }, 0)).ok, true);
    equal((await put({ enabled: true, types: types(17) }, 1)).ok, false);
    equal((await put({ enabled: true, types: types(1, 17) }, 1)).ok, false);
    equal(
      (await put({
        enabled: true,
        types: [{ model: "m", fields: fields(1, 10) }],
      }, 1)).ok,
      true,
    );
    equal(
      (await put({
        enabled: true,
        types: [{ model: "m", fields: fields(1, 11) }],
      }, 2)).ok,
      false,
    );
    equal(
      (await put({
        enabled: true,
        types: [{ model: "m", fields: fields(1, 0) }],
      }, 2)).ok,
      false,
    );
  });
});

Deno.test("seo redirects: 256 address and 32 pattern redirects pass, one more of either is refused", async () => {
  await withSite(async (ctx) => {
    const base = {
      title_template: "{title}",
      default_description: "",
      robots: { index: true, extra: "" },
    };
    const exact = (n: number) =>
      Array.from(
        { length: n },
        (_, i) => ({ from: `/a${i}`, match: "exact", status: 301, to: "/b" }),
      );
    const pattern = (n: number) =>
      Array.from(
        { length: n },
        (_, i) => ({
          from: `/p${i}/{slug}`,
          match: "pattern",
          status: 308,
          to: "/q/{slug}",
        }),
      );
    const put = (redirects: unknown[], expectedRevision: number) =>
      putSettings(ctx, "seo", {
        document: { ...base, redirects },
        expectedRevision,
      });
    equal((await put([...exact(256), ...pattern(32)], 0)).ok, true);
    equal((await put([...exact(257), ...pattern(32)], 1)).ok, false);
    equal((await put([...exact(256), ...pattern(33)], 1)).ok, false);
    equal(
      (await put([{ from: "/gone", match: "exact", status: 410, to: null }], 1))
        .ok,
      true,
    );
    equal(
      (await put([{ from: "/gone", match: "exact", status: 410, to: "/x" }], 2))
        .ok,
      false,
    );
    equal(
      (await put([{
        from: "/x",
        match: "exact",
        status: 301,
        to: "http://insecure.test/",
      }], 2)).ok,
      false,
    );
  });
});

Deno.test("localeChain() follows the policy: strict serves only the asked language", () => {
  const fallback = { policy: "fallback" as const, chains: { de: ["fr"] } };
  deepEqual(localeChain(fallback, "de", "en"), ["de", "fr", "en"]);
  deepEqual(localeChain(fallback, "en", "en"), ["en"]);
  deepEqual(
    localeChain({ policy: "strict", chains: { de: ["fr"] } }, "de", "en"),
    ["de"],
  );
});
