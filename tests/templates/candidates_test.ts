// Template candidates over HTTP against the real build service process: upload, refusals, the
// sandbox, storage once per site and digest, acceptance and registered section versions.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { administratorPermissions } from "../../core/access/default_roles.ts";
import { setMemberPermissions, setupAdmin } from "../admin/helpers.ts";
import { siteSectionRegistry } from "../../core/templates/registry.ts";
import { exampleUpload } from "./example.ts";
import {
  IMAGE,
  jsonCaller,
  startBuildService,
  templateEnv,
} from "./support.ts";

async function withTemplates(
  fn: (s: {
    call: Awaited<ReturnType<typeof jsonCaller>>;
    t: Awaited<ReturnType<typeof setupAdmin>>["t"];
    siteId: string;
    userId: string;
    artifacts: string;
  }) => Promise<void>,
): Promise<void> {
  const service = await startBuildService();
  const artifacts = await Deno.makeTempDir({ prefix: "stave-artifacts-" });
  const { t, siteId, userId } = await setupAdmin({
    env: templateEnv(service.origin, artifacts),
  });
  try {
    await setMemberPermissions(
      t.services.db,
      userId,
      administratorPermissions(),
    );
    const call = await jsonCaller(t, userId);
    await fn({ call, t, siteId, userId, artifacts });
  } finally {
    await t.close();
    await service.stop();
    await Deno.remove(artifacts, { recursive: true });
  }
}

async function candidateCount(t: Awaited<ReturnType<typeof setupAdmin>>["t"]) {
  return (await t.services.db.selectFrom("template_candidates").select("id")
    .execute()).length;
}

Deno.test("TPL-001 TPL-002 TPL-004 TPL-012 TPL-013 TPL-015 TPL-016: upload, store once, report, accept, stale load, promoted versions and the section diff", () =>
  withTemplates(async ({ call, t, siteId, artifacts }) => {
    const upload = await exampleUpload();
    const made = await call("/api/managed-templates/candidates", {
      body: upload,
    });
    equal(made.status, 201);
    const { data: candidate, report } = await made.json();
    equal(candidate.name, "Harbour");
    equal(candidate.contract, 5);
    deepEqual(candidate.regions, [{ key: "sidebar", label: "Sidebar" }]);
    equal(candidate.sections[0].key, "opening_hours");
    match(candidate.sections[0].identity, /^[0-9a-f]{64}$/);
    // TPL-002: every check ran and passed, bound to this site and candidate.
    deepEqual(
      report.checks.map((
        c: { name: string; status: string },
      ) => [c.name, c.status]),
      [
        ["source_rules", "passed"],
        ["install", "passed"],
        ["type_check", "passed"],
        ["build", "passed"],
        ["fixtures", "passed"],
        ["accessibility", "passed"],
        ["widths", "passed"],
      ],
    );
    equal(report.site_id, siteId);
    equal(report.candidate_digest, candidate.digest);
    equal(report.sandbox_image, IMAGE);
    // TPL-004: three files stored once under keys for this site and candidate.
    const stored = [
      ...Deno.readDirSync(`${artifacts}/${siteId}/${candidate.id}`),
    ].map((e) => e.name).sort();
    deepEqual(stored, ["compiled.json", "report.json", "source.json"]);
    const again = await call("/api/managed-templates/candidates", {
      body: upload,
    });
    equal(again.status, 200);
    equal((await again.json()).data.id, candidate.id);
    equal(await candidateCount(t), 1);
    const listed = await (await call("/api/managed-templates/candidates"))
      .json();
    deepEqual(listed.data.map((c: { id: string }) => c.id), [candidate.id]);
    const one =
      await (await call(`/api/managed-templates/candidates/${candidate.id}`))
        .json();
    equal(one.report.build_id, candidate.build_id);

    // TPL-016: before any acceptance every key is new.
    const diff = await (await call(
      `/api/managed-templates/candidates/${candidate.id}/sections`,
    )).json();
    deepEqual(diff.data, [{
      key: "opening_hours",
      version: 1,
      change: "new",
      reasons: [],
      pages_on_older: 0,
    }]);

    // TPL-012: accepting deploys nothing and promotes the section (TPL-015).
    const accepted = await call(
      `/api/managed-templates/candidates/${candidate.id}/accept`,
      { body: { observed_acceptance: 0 } },
    );
    equal(accepted.status, 200);
    deepEqual((await accepted.json()).data, {
      acceptance: 1,
      sections: [{
        key: "opening_hours",
        version: 1,
        identity: candidate.sections[0].identity,
      }],
    });
    // TPL-013: a second accept from the same (now stale) load.
    const stale = await call(
      `/api/managed-templates/candidates/${candidate.id}/accept`,
      { body: { observed_acceptance: 0 } },
    );
    equal(stale.status, 409);
    equal((await stale.json()).error.code, "stale_document");

    // TPL-015: a changed component gets the key's next version; version 1 stays as it was.
    const changed = structuredClone(upload);
    changed.source["sections/opening_hours.tsx"] += "\n// Second edition.\n";
    const second = await call("/api/managed-templates/candidates", {
      body: changed,
    });
    equal(second.status, 201);
    const secondId = (await second.json()).data.id;
    const diff2 = await (await call(
      `/api/managed-templates/candidates/${secondId}/sections`,
    )).json();
    deepEqual(diff2.data, [{
      key: "opening_hours",
      version: 2,
      change: "compatible",
      reasons: [],
      pages_on_older: 0,
    }]);
    const accepted2 = await call(
      `/api/managed-templates/candidates/${secondId}/accept`,
      { body: { observed_acceptance: 1 } },
    );
    equal(accepted2.status, 200);
    const versions = await t.services.db.selectFrom(
      "registered_section_versions",
    ).select(["key", "version", "candidate_id"])
      .orderBy("version").execute();
    deepEqual(versions.map((v) => [v.key, v.version, v.candidate_id]), [
      ["opening_hours", 1, candidate.id],
      ["opening_hours", 2, secondId],
    ]);

    // The promoted versions are what the page parser reads custom sections with.
    const registry = await siteSectionRegistry(t.services.db, siteId);
    equal(registry.definition("opening_hours", 1)?.key, "opening_hours");
    match(
      registry.definition("opening_hours", 2)?.digest ?? "",
      /^[0-9a-f]{64}$/,
    );
    equal(registry.definition("opening_hours", 3), null);

    // TPL-012: a stored file that changed is noticed at acceptance.
    const reportPath = `${artifacts}/${siteId}/${candidate.id}/report.json`;
    const text = await Deno.readTextFile(reportPath);
    await Deno.writeTextFile(
      reportPath,
      text.replace('"passed":true', '"passed":false'),
    );
    const tampered = await call(
      `/api/managed-templates/candidates/${candidate.id}/accept`,
      { body: { observed_acceptance: 2 } },
    );
    equal(tampered.status, 409);
    const body = await tampered.json();
    equal(body.error.code, "candidate_unreadable");
    match(body.error.reason, /report\.json changed/);

    // TPL-011: a candidate built against another page contract is refused until rebuilt.
    await t.services.db.updateTable("template_candidates").set({ contract: 4 })
      .where("id", "=", secondId).execute();
    const outdated = await call(
      `/api/managed-templates/candidates/${secondId}/accept`,
      { body: { observed_acceptance: 2 } },
    );
    equal(outdated.status, 409);
    equal((await outdated.json()).error.code, "template_contract_outdated");
  }));

Deno.test("TPL-002 TPL-004 TPL-025: a type error, an unlocked package or a component importing another module stores nothing; the report names the check", () =>
  withTemplates(async ({ call, t }) => {
    const upload = await exampleUpload();
    const typeError = structuredClone(upload);
    typeError.source["template.tsx"] += '\nconst wrong: number = "text";\n';
    const refused = await call("/api/managed-templates/candidates", {
      body: typeError,
    });
    equal(refused.status, 422);
    const { error } = await refused.json();
    equal(error.code, "template_checks_failed");
    const byName = Object.fromEntries(
      error.report.checks.map((
        c: { name: string; status: string },
      ) => [c.name, c.status]),
    );
    equal(byName.type_check, "failed");
    equal(byName.build, "skipped");
    match(JSON.stringify(error.report.checks), /TS2322/);

    const unlocked = structuredClone(upload);
    unlocked.source["template.lock.json"] = JSON.stringify({
      packages: { preact: "10.0.0" },
    });
    const install = await (await call("/api/managed-templates/candidates", {
      body: unlocked,
    })).json();
    const check = install.error.report.checks.find((c: { name: string }) =>
      c.name === "install"
    );
    equal(check.status, "failed");
    match(
      check.detail[0],
      /preact@10\.0\.0 is not in the offline package store/,
    );

    const importing = structuredClone(upload);
    importing.source["sections/helper.ts"] = "export const x = 1;";
    importing.source["sections/opening_hours.tsx"] =
      'import { x } from "./helper.ts";\n' +
      importing.source["sections/opening_hours.tsx"].replace(
        "<dl>",
        "<dl data-x={x}>",
      );
    const built = await (await call("/api/managed-templates/candidates", {
      body: importing,
    })).json();
    const build = built.error.report.checks.find((c: { name: string }) =>
      c.name === "build"
    );
    equal(build.status, "failed");
    match(build.detail[0], /imports only @stave\/page-contract/);
    equal(await candidateCount(t), 0);
  }));

Deno.test("the sandbox: a candidate's code cannot reach the network, the service's files or its environment", () =>
  withTemplates(async ({ call, t }) => {
    const upload = await exampleUpload();
    const hostile = structuredClone(upload);
    hostile.source["template.tsx"] += `
function attempt(what: string, fn: () => unknown): string {
  try {
    fn();
    return what + ":reached";
  } catch (e) {
    return what + ":" + (e instanceof Error ? e.name : "error");
  }
}
export const probe = [
  attempt("read", () => Deno.readTextFileSync("${
      new URL("../../deno.json", import.meta.url).pathname
    }")),
  attempt("env", () => Deno.env.get("TEMPLATE_BUILD_SERVICE_KEY")),
  attempt("write", () => Deno.writeTextFileSync("/tmp/escaped.txt", "x")),
  attempt("run", () => new Deno.Command("/bin/true").outputSync()),
].join(" ");
const net = await fetch("http://127.0.0.1:8001/").then(() => "net:reached", (e) => "net:" + e.name);
throw new Error(probe + " " + net);
`;
    const refused = await call("/api/managed-templates/candidates", {
      body: hostile,
    });
    equal(refused.status, 422);
    const { error } = await refused.json();
    const fixtures = error.report.checks.find((c: { name: string }) =>
      c.name === "fixtures"
    );
    equal(fixtures.status, "failed");
    const said = fixtures.detail.join(" ");
    match(
      said,
      /read:NotCapable env:NotCapable write:NotCapable run:NotCapable net:NotCapable/,
    );
    ok(!said.includes("reached"));
    equal(await candidateCount(t), 0);
  }));

Deno.test("TPL-003 TPL-032: source rules and manifest refusals answer before any build and store nothing", () =>
  withTemplates(async ({ call, t }) => {
    const upload = await exampleUpload();
    const collide = await call("/api/managed-templates/candidates", {
      body: { ...upload, source: { ...upload.source, "A.ts": "", "a.ts": "" } },
    });
    equal(collide.status, 400);
    deepEqual((await collide.json()).error, {
      code: "template_source_refused",
      message: "A source rule refused the files",
      rule: "case_collision",
      paths: ["A.ts", "a.ts"],
    });
    // JSON escapes carry a lone surrogate past the UTF-8 check: the source rules name it.
    const lone = `{"manifest":${
      JSON.stringify(upload.manifest)
    },"source":{"template.tsx":"\\ud800","template.lock.json":"{}"}}`;
    const surrogate = await call("/api/managed-templates/candidates", {
      body: lone,
    });
    equal(surrogate.status, 400);
    equal((await surrogate.json()).error.rule, "unpaired_surrogate");
    const nine = await call("/api/managed-templates/candidates", {
      body: {
        ...upload,
        manifest: {
          ...upload.manifest,
          regions: Array.from(
            { length: 9 },
            (_, i) => ({ key: `r${i}`, label: "R" }),
          ),
        },
      },
    });
    equal(nine.status, 400);
    const nineBody = await nine.json();
    equal(nineBody.error.code, "invalid_template_manifest");
    equal(nineBody.error.issues[0].path, "manifest.regions");
    const extra = await call("/api/managed-templates/candidates", {
      body: { ...upload, name: "x" },
    });
    equal(extra.status, 400);
    equal((await extra.json()).error.code, "invalid_request");
    equal(await candidateCount(t), 0);
  }));

Deno.test("TPL-001 TPL-020 TPL-022: permissions and missing settings", async () => {
  const { t, userId } = await setupAdmin({
    env: {
      TEMPLATE_BUILD_SERVICE_URL: "http://127.0.0.1:9",
      TEMPLATE_BUILD_SERVICE_KEY: "short",
    },
  });
  try {
    const call = await jsonCaller(t, userId);
    const upload = await exampleUpload();
    // The member's role holds no site:deploy.
    await setMemberPermissions(t.services.db, userId, {
      models: {},
      system: ["site:infra"],
    });
    const denied = await call("/api/managed-templates/candidates", {
      body: upload,
    });
    equal(denied.status, 403);
    deepEqual((await denied.json()).error.missing, ["site:deploy"]);
    const admin = administratorPermissions();
    await setMemberPermissions(t.services.db, userId, {
      ...admin,
      system: admin.system.filter((p) => p !== "ai:generate"),
    });
    const closed = await call("/api/managed-templates/candidates", {
      body: upload,
    });
    equal(closed.status, 503);
    const { error } = await closed.json();
    equal(error.code, "template_operation_unavailable");
    equal(error.operation, "upload");
    deepEqual(error.missing, [
      "TEMPLATE_BUILD_SERVICE_KEY",
      "TEMPLATE_SANDBOX_IMAGE",
      "TEMPLATE_ARTIFACTS",
    ]);
    // Generating needs ai:generate too, then an inference connection.
    const noAi = await call("/api/managed-templates/candidates/generate", {
      body: {},
    });
    equal(noAi.status, 403);
    deepEqual((await noAi.json()).error.missing, ["ai:generate"]);
    await setMemberPermissions(t.services.db, userId, admin);
    const gen = await call("/api/managed-templates/candidates/generate", {
      body: {},
    });
    equal(gen.status, 503);
    const genBody = await gen.json();
    equal(genBody.error.operation, "generate");
    ok(genBody.error.missing.includes("TEMPLATE_INFERENCE_URL"));
  } finally {
    await t.close();
  }
});
