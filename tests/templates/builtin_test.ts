// Long on purpose: using the built-in and the refusals it meets share one delivery set-up.
// "Use built-in template" (TPL-017, TPL-018), what activation, rollback and publishing refuse
// when a published page pins a registered section the template does not draw (TPL-027, TPL-028),
// and a published page at the search address blocking a new release (SRCH-030).
import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { administratorPermissions } from "../../core/access/default_roles.ts";
import { personActor } from "../../core/access/actor.ts";
import {
  modelValidator,
  publishEntry,
  saveEntry,
} from "../../core/entries/mod.ts";
import { createModel } from "../../core/models/store.ts";
import {
  readReleasedBuiltIn,
  RELEASED_BUILTIN_DIR,
  useBuiltInTemplate,
} from "../../core/templates/builtin.ts";
import { CURRENT_PAGE_CONTRACT } from "../../core/templates/candidates.ts";
import { refuseTemplate } from "../../core/templates/http.ts";
import { getSettings, putSettings } from "../../core/sites/settings.ts";
import type { Db } from "../../core/db/database.ts";
import { HttpError } from "../../core/web/errors.ts";
import { packBuiltIn } from "../../services/templates/builtin_release.ts";
import { candidateDigest } from "../../core/templates/candidates.ts";
import { setMemberPermissions, setupAdmin } from "../admin/helpers.ts";
import {
  DEPLOY_KEY,
  jsonCaller,
  startBuildService,
  templateEnv,
} from "./support.ts";

const FILES = ["source.json", "compiled.json", "report.json"] as const;
const DELIVERY = [
  "MANAGED_RENDER_DEPLOY_SERVICE_URL",
  "MANAGED_RENDER_DEPLOY_SERVICE_KEY",
  "MANAGED_RENDER_INSTALLATION_ID",
  "MANAGED_RENDER_HMAC_KEY",
];

/** Rows that a refused operation must leave as they were. */
async function snapshot(db: Db, siteId: string) {
  const count = async (
    table:
      | "template_candidates"
      | "template_acceptances"
      | "managed_releases"
      | "managed_addresses"
      | "registered_section_versions"
      | "audit_entries",
  ) =>
    Number(
      (await db.selectFrom(table).select((eb) => eb.fn.countAll().as("n"))
        .where("site_id", "=", siteId).executeTakeFirstOrThrow()).n,
    );
  return {
    candidates: await count("template_candidates"),
    acceptances: await count("template_acceptances"),
    releases: await db.selectFrom("managed_releases").select([
      "number",
      "state",
    ]).where("site_id", "=", siteId).orderBy("number").execute(),
    addresses: await db.selectFrom("managed_addresses").select([
      "host",
      "role",
    ]).where("site_id", "=", siteId).orderBy("role").execute(),
    sections: await count("registered_section_versions"),
    audit: await count("audit_entries"),
  };
}

async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) found.push(e.name);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return found;
}

Deno.test("TPL-017 TPL-018: the released built-in is this repository's built-in template, built by every check an upload passes", async () => {
  const read = await readReleasedBuiltIn();
  ok(read.ok, JSON.stringify(read));
  const { record, texts } = read.released;
  // Fails when the built-in changed without `deno task gen:builtin`.
  const packed = await packBuiltIn();
  equal(
    candidateDigest(packed.manifest, packed.source),
    record.digest,
    "the released built-in is older than the built-in template: run deno task gen:builtin",
  );
  equal(record.contract, CURRENT_PAGE_CONTRACT);
  const report = JSON.parse(texts["report.json"]);
  equal(report.passed, true);
  deepEqual(
    report.checks.map((c: { name: string; status: string }) =>
      `${c.name}:${c.status}`
    ),
    [
      "source_rules:passed",
      "install:passed",
      "type_check:passed",
      "build:passed",
      "fixtures:passed",
      "accessibility:passed",
      "widths:passed",
    ],
  );
  ok(JSON.parse(texts["compiled.json"])["template.js"].length > 1000);
});

Deno.test("TPL-017 TPL-018: without delivery settings Use built-in template accepts a byte-for-byte copy and names what delivery lacks; stale and tampered uses change nothing", async () => {
  const artifacts = await Deno.makeTempDir({ prefix: "stave-artifacts-" });
  const { t, siteId, userId } = await setupAdmin({
    env: { TEMPLATE_ARTIFACTS: artifacts },
  });
  try {
    const db = t.services.db;
    await setMemberPermissions(db, userId, administratorPermissions());
    const call = await jsonCaller(t, userId);
    const use = (body: unknown) =>
      call("/api/managed-templates/builtin/use", { body });

    const closed = await use({ observed_acceptance: 0, extra: 1 });
    equal(closed.status, 400);
    equal((await closed.json()).error.code, "invalid_request");

    const used = await use({ observed_acceptance: 0 });
    equal(used.status, 200, await used.clone().text());
    const { data } = await used.json();
    const read = await readReleasedBuiltIn();
    ok(read.ok);
    equal(data.acceptance, 1);
    equal(data.candidate.origin, "builtin");
    equal(data.candidate.digest, read.released.record.digest);
    equal(data.release, null);
    deepEqual(data.missing, DELIVERY);
    equal(data.release_refused, null);
    // The three files are the released ones, byte for byte.
    for (const name of FILES) {
      deepEqual(
        await Deno.readFile(
          `${artifacts}/${siteId}/${data.candidate.id}/${name}`,
        ),
        await Deno.readFile(`${RELEASED_BUILTIN_DIR}/${name}`),
      );
    }

    // Loaded before that acceptance: stale_document, and nothing changes.
    const before = await snapshot(db, siteId);
    const stale = await use({ observed_acceptance: 0 });
    equal(stale.status, 409);
    const staleBody = await stale.json();
    equal(staleBody.error.code, "stale_document");
    equal(staleBody.error.current, 1);
    deepEqual(await snapshot(db, siteId), before);

    // A tampered released file: platform_template_unavailable (503), and nothing changes.
    const tampered = await Deno.makeTempDir({ prefix: "stave-builtin-" });
    for (const name of [...FILES, "release.json"]) {
      await Deno.copyFile(
        `${RELEASED_BUILTIN_DIR}/${name}`,
        `${tampered}/${name}`,
      );
    }
    await Deno.writeTextFile(
      `${tampered}/compiled.json`,
      (await Deno.readTextFile(`${tampered}/compiled.json`)).replace(
        "<!doctype html>",
        "<!doctype html><script>1</script>",
      ),
    );
    const ctx = {
      db,
      clock: t.clock,
      siteId,
      userId,
      settings: { TEMPLATE_ARTIFACTS: artifacts },
    };
    const refused = await useBuiltInTemplate(ctx, {
      observed: 1,
      dir: tampered,
    });
    equal(refused.ok, false);
    equal((refused as { code: string }).code, "platform_template_unavailable");
    throws(
      () => refuseTemplate(refused as { ok: false; code: string }),
      (e) =>
        e instanceof HttpError && e.status === 503 &&
        e.code === "platform_template_unavailable",
    );
    const missing = await useBuiltInTemplate(ctx, {
      observed: 1,
      dir: `${tampered}/nowhere`,
    });
    equal((missing as { code: string }).code, "platform_template_unavailable");
    deepEqual(await snapshot(db, siteId), before);
    await Deno.remove(tampered, { recursive: true });

    // Using it again is a new acceptance of the same copy.
    const again = await use({ observed_acceptance: 1 });
    equal(again.status, 200);
    const second = (await again.json()).data;
    equal(second.acceptance, 2);
    equal(second.candidate.id, data.candidate.id);
    deepEqual(await filesUnder(`${artifacts}/${siteId}`), [data.candidate.id]);

    // Accepting needs TEMPLATE_ARTIFACTS.
    const bare = await useBuiltInTemplate({ ...ctx, settings: {} }, {
      observed: 2,
    });
    deepEqual(bare, {
      ok: false,
      code: "template_operation_unavailable",
      operation: "accept",
      missing: ["TEMPLATE_ARTIFACTS"],
    });
  } finally {
    await t.close();
    await Deno.remove(artifacts, { recursive: true });
  }
});

const BANNER = {
  key: "banner",
  label: "Banner",
  description: "",
  variants: ["default"],
  props: { title: { kind: "text" } },
};
const BANNER_DIGEST = "d".repeat(64);
const BANNER_IDENTITY = "f".repeat(64);

function bannerDocument(title: string, custom = true) {
  return {
    format: 2,
    sections: [
      custom
        ? {
          id: "b1",
          type: "custom",
          variant: "default",
          layout: "default",
          component: null,
          definition: { key: "banner", version: 1, digest: BANNER_DIGEST },
        }
        : {
          id: "b1",
          type: "rich_text",
          variant: "default",
          layout: "default",
          component: null,
        },
    ],
    props: {
      b1: custom
        ? { heading: null, fields: { title } }
        : { heading: title, paragraphs: ["Words."] },
    },
  };
}

/** A stored candidate row drawing `sections` (its files are not needed by these refusals). */
async function candidateRow(
  db: Db,
  siteId: string,
  now: Date,
  sections: { key: string; identity: string }[],
): Promise<string> {
  const id = crypto.randomUUID();
  await db.insertInto("template_candidates").values({
    id,
    site_id: siteId,
    digest: crypto.randomUUID().replaceAll("-", "").repeat(2),
    name: sections.length ? "With banner" : "Without banner",
    manifest: JSON.stringify({ name: "T", entry: "template.tsx" }),
    sections: JSON.stringify(
      sections.map((s) => ({ ...s, label: "Banner", component: "x" })),
    ),
    contract: CURRENT_PAGE_CONTRACT,
    origin: "upload",
    build_id: "build",
    sandbox_image: "image",
    source_digest: "b".repeat(64),
    compiled_digest: "c".repeat(64),
    report_digest: "e".repeat(64),
    created_by: null,
    created_at: now,
  }).execute();
  return id;
}

Deno.test("TPL-018 TPL-027 TPL-028: a published page's registered section refuses Use built-in template (section_pins_stranded), activation and rollback (published_pages_pin_missing_sections) and its publication under a template that does not draw it (renderer_capability_exceeded)", async () => {
  const artifacts = await Deno.makeTempDir({ prefix: "stave-artifacts-" });
  // The deploy service is never reached: every refusal comes before it.
  const { t, siteId, userId } = await setupAdmin({
    env: templateEnv("http://127.0.0.1:9", artifacts),
  });
  try {
    const db = t.services.db;
    const now = t.clock.now();
    await setMemberPermissions(db, userId, administratorPermissions());
    const call = await jsonCaller(t, userId);
    const withBanner = await candidateRow(db, siteId, now, [
      { key: "banner", identity: BANNER_IDENTITY },
    ]);
    const withoutBanner = await candidateRow(db, siteId, now, []);
    await db.insertInto("registered_section_versions").values({
      site_id: siteId,
      key: "banner",
      version: 1,
      identity: BANNER_IDENTITY,
      digest: BANNER_DIGEST,
      definition: JSON.stringify(BANNER),
      candidate_id: withBanner,
      promoted_at: now,
    }).execute();
    const pages = await createModel({ db, clock: t.clock, siteId }, {
      model: { name: "Pages", slug: "pages" },
      fields: [
        { key: "title", label: "Title", type: "text" },
        { key: "slides", label: "Slides", type: "json" },
      ],
    });
    if (!pages.ok) throw new Error(JSON.stringify(pages));
    const ctx = {
      db,
      clock: t.clock,
      siteId,
      actor: personActor(userId),
      validate: modelValidator(),
    };
    const save = async (
      slug: string,
      document: unknown,
      from?: { group_id: string; current_version_id: string | null },
    ) => {
      const saved = await saveEntry(ctx, {
        ...(from ? { group_id: from.group_id } : { model_id: pages.model_id }),
        locale: "en",
        slug,
        fields: { title: slug, slides: document },
        expected_current_version_id: from?.current_version_id ?? null,
      });
      if (!saved.ok) throw new Error(JSON.stringify(saved));
      return saved;
    };
    const publish = (saved: Awaited<ReturnType<typeof save>>) =>
      publishEntry(ctx, {
        group_id: saved.group_id,
        expected_current_version_id: saved.current_version_id,
        expected_workflow_revision: saved.revision,
      });

    // Without an active release nothing refuses the publication.
    const landing = await save("landing", bannerDocument("Hello"));
    const first = await publish(landing);
    ok(first.ok, JSON.stringify(first));

    // TPL-018: the built-in draws no banner: section_pins_stranded, nothing changes.
    let before = await snapshot(db, siteId);
    const stranded = await call("/api/managed-templates/builtin/use", {
      body: { observed_acceptance: 0 },
    });
    equal(stranded.status, 409);
    const strandedBody = await stranded.json();
    equal(strandedBody.error.code, "section_pins_stranded");
    deepEqual(strandedBody.error.pins, [{
      key: "banner",
      version: 1,
      pages: 1,
    }]);
    deepEqual(await snapshot(db, siteId), before);
    deepEqual(await filesUnder(artifacts), []);

    // TPL-027: activating a release whose template does not draw the banner is refused.
    const base = `/api/sites/${siteId}/managed-renderer`;
    const release = (
      number: number,
      candidate: string,
      state: "proven" | "active" | "retired",
      host: string,
    ) =>
      db.insertInto("managed_releases").values({
        site_id: siteId,
        number,
        candidate_id: candidate,
        state,
        origin: `https://${host}`,
        installation_id: "stave-test",
        digest: String(number).repeat(64).slice(0, 64),
        signature: "0".repeat(64),
        prepared_at: now,
        activated_at: state === "proven" ? null : now,
        retired_at: state === "retired" ? now : null,
      }).execute();
    await release(1, withoutBanner, "proven", "www.bakery.example");
    before = await snapshot(db, siteId);
    const switched = await call(`${base}/releases/1/switch-address`, {
      body: { observed_active_number: null },
    });
    equal(switched.status, 409);
    const switchedBody = await switched.json();
    equal(switchedBody.error.code, "published_pages_pin_missing_sections");
    deepEqual(switchedBody.error.pins, [{ key: "banner", version: 1 }]);
    deepEqual(await snapshot(db, siteId), before);

    // TPL-027: going back to the previous host's release that lacks it is refused too.
    await db.updateTable("managed_releases").set({
      state: "retired",
      retired_at: now,
    }).where("site_id", "=", siteId).execute();
    await release(2, withBanner, "active", "new.bakery.example");
    await db.insertInto("managed_addresses").values([
      {
        site_id: siteId,
        host: "new.bakery.example",
        role: "active",
        switched_at: now,
        rollback_until: null,
      },
      {
        site_id: siteId,
        host: "www.bakery.example",
        role: "previous",
        switched_at: now,
        rollback_until: new Date(now.getTime() + 86_400_000),
      },
    ]).execute();
    before = await snapshot(db, siteId);
    const back = await call(`${base}/address/rollback`, {
      body: { observed_active_number: 2 },
    });
    equal(back.status, 409);
    equal(
      (await back.json()).error.code,
      "published_pages_pin_missing_sections",
    );
    deepEqual(await snapshot(db, siteId), before);

    // TPL-028: the active release draws the banner, so a new version publishes.
    const edited = await save(
      "landing",
      bannerDocument("Hello again"),
      landing,
    );
    ok((await publish(edited)).ok);
    // Under an active release that does not draw it, publishing is refused at the section.
    await db.updateTable("managed_releases").set({
      candidate_id: withoutBanner,
    })
      .where("site_id", "=", siteId).where("number", "=", 2).execute();
    const published = await db.selectFrom("entries").select(
      "published_version_id",
    )
      .where("group_id", "=", landing.group_id).executeTakeFirstOrThrow();
    const third = await save("landing", bannerDocument("Not drawn"), edited);
    const refused = await publish(third);
    equal(refused.ok, false);
    equal((refused as { code: string }).code, "field_validation_failed");
    const problems = (refused as { errors?: { path: string; code: string }[] })
      .errors ?? [];
    deepEqual(problems.map((p) => [p.path, p.code]), [[
      "slides.sections[0].definition",
      "renderer_capability_exceeded",
    ]]);
    deepEqual(
      await db.selectFrom("entries").select("published_version_id")
        .where("group_id", "=", landing.group_id).executeTakeFirstOrThrow(),
      published,
    );
    // A page without registered sections still publishes.
    const plain = await save("plain", bannerDocument("Plain", false));
    ok((await publish(plain)).ok);
  } finally {
    await t.close();
    await Deno.remove(artifacts, { recursive: true });
  }
});

Deno.test("TPL-017 SRCH-030: with delivery set up Use built-in template prepares and activates a release of it on the site's address; a published page at /<language>/search blocks a new release while search is on", async () => {
  const service = await startBuildService();
  const artifacts = await Deno.makeTempDir({ prefix: "stave-artifacts-" });
  const { t, siteId, userId } = await setupAdmin({
    env: templateEnv(service.origin, artifacts),
  });
  try {
    const db = t.services.db;
    await setMemberPermissions(db, userId, administratorPermissions());
    const call = await jsonCaller(t, userId);
    const base = `/api/sites/${siteId}/managed-renderer`;
    const use = (observed: number) =>
      call("/api/managed-templates/builtin/use", {
        body: { observed_acceptance: observed },
      });
    const active = async (host: string) => {
      const res = await fetch(
        `${service.origin}/releases/active?host=${host}`,
        {
          headers: { authorization: `Bearer ${DEPLOY_KEY}` },
        },
      );
      return res.status === 200
        ? await res.json() as { number: number; files: Record<string, string> }
        : (await res.body?.cancel(), null);
    };

    // Before the site has an address there is no production release: it stops after acceptance.
    const first = (await (await use(0)).json()).data;
    equal(first.acceptance, 1);
    equal(first.release, null);
    deepEqual(first.missing, ["address"]);
    const proved = await call(`${base}/address/prove`, {
      body: { host: "www.bakery.example" },
    });
    equal(proved.status, 201, await proved.clone().text());
    const switched = await call(`${base}/releases/1/switch-address`, {
      body: { observed_active_number: null },
    });
    equal(switched.status, 200, await switched.clone().text());

    // SRCH-030: a published page at /de/search while search is on.
    const pages = await createModel({ db, clock: t.clock, siteId }, {
      model: { name: "Pages", slug: "pages", enableI18n: true },
      fields: [
        { key: "title", label: "Title", type: "text", localized: true },
        { key: "slides", label: "Slides", type: "json", localized: true },
      ],
    });
    if (!pages.ok) throw new Error(JSON.stringify(pages));
    const ctx = {
      db,
      clock: t.clock,
      siteId,
      actor: personActor(userId),
      validate: modelValidator(),
    };
    const saved = await saveEntry(ctx, {
      model_id: pages.model_id,
      locale: "de",
      slug: "suche",
      fields: { title: "Suche", slides: bannerDocument("Suche", false) },
      expected_current_version_id: null,
    });
    if (!saved.ok) throw new Error(JSON.stringify(saved));
    ok(
      (await publishEntry(ctx, {
        group_id: saved.group_id,
        expected_current_version_id: saved.current_version_id,
        expected_workflow_revision: saved.revision,
      })).ok,
    );
    // The editor reserves the address now; a page published before it was reserved keeps it.
    await db.updateTable("entries").set({ slug: "search" })
      .where("group_id", "=", saved.group_id).execute();
    const setSearch = async (enabled: boolean) => {
      const search = await getSettings({ db, siteId }, "search");
      const put = await putSettings(
        { db, clock: t.clock, siteId, personId: userId },
        "search",
        {
          document: { ...search.document, enabled },
          expectedRevision: search.revision,
        },
      );
      ok(put.ok, JSON.stringify(put));
    };
    await setSearch(true);

    const before = await snapshot(db, siteId);
    const blocked = await call(`${base}/address/prove`, {
      body: { host: "shop.bakery.example" },
    });
    equal(blocked.status, 409);
    const blockedBody = await blocked.json();
    equal(blockedBody.error.code, "search_page_address_taken");
    deepEqual(blockedBody.error.paths, ["/de/search"]);
    deepEqual(await snapshot(db, siteId), before);
    // Use built-in still accepts, and says why no release was made.
    const second = (await (await use(1)).json()).data;
    equal(second.acceptance, 2);
    equal(second.release, null);
    deepEqual(second.release_refused, {
      code: "search_page_address_taken",
      paths: ["/de/search"],
    });
    deepEqual((await snapshot(db, siteId)).releases, before.releases);

    // Search off: the built-in is released to the active address and activated.
    await setSearch(false);
    const third = await use(2);
    equal(third.status, 200, await third.clone().text());
    const used = (await third.json()).data;
    equal(used.acceptance, 3);
    deepEqual(used.missing, []);
    equal(used.release_refused, null);
    equal(used.release.number, 2);
    equal(used.release.state, "active");
    equal(used.release.origin, "https://www.bakery.example");
    equal(used.release.candidate_id, first.candidate.id);
    const history = (await (await call(`${base}/releases`)).json()).data;
    deepEqual(
      history.releases.map((r: { number: number; state: string }) =>
        `${r.number}:${r.state}`
      ),
      ["2:active", "1:retired"],
    );
    equal(history.address.active, "www.bakery.example");
    // The deploy service serves the released built-in's compiled files for that host.
    const served = await active("www.bakery.example");
    equal(served?.number, 2);
    const read = await readReleasedBuiltIn();
    ok(read.ok);
    deepEqual(served?.files, JSON.parse(read.released.texts["compiled.json"]));
  } finally {
    await t.close();
    await service.stop();
    await Deno.remove(artifacts, { recursive: true });
  }
});
