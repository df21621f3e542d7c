// The checks every template candidate passes, in order: source rules, offline install from the
// pinned lockfile, type check, build, the page-contract fixtures drawn in the sandbox, then
// accessibility and the 390 and 1440 px widths (spec 3 part 4.8 rule 1). The first failure
// skips the rest; the report names every check.
import * as esbuild from "esbuild";
import {
  FIXTURE_NAMES,
  fixtureCalls,
  otherCalls,
} from "../../core/templates/fixtures.ts";
import {
  LOCKFILE_PATH,
  lockfileSchema,
  PAGE_CONTRACT_MODULE,
  readManifest,
  REGISTERED_COMPONENT_DIR,
} from "../../core/templates/manifest.ts";
import { checkSourceRules } from "../../core/templates/source_rules.ts";
import { checkInBrowser } from "./browser_checks.ts";
import { compiledDigest } from "../../core/templates/compiled_digest.ts";

export { compiledDigest };
import { runSandboxed, SANDBOX_LIMITS, type SandboxLimits } from "./sandbox.ts";

const ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
const PAGE_CONTRACT_PATH = `${ROOT}/core/pages/mod.ts`;

/** The check names, in the order they run. */
export const CHECKS = [
  "source_rules",
  "install",
  "type_check",
  "build",
  "fixtures",
  "accessibility",
  "widths",
] as const;

/** One check's outcome. */
export interface CheckResult {
  name: typeof CHECKS[number];
  status: "passed" | "failed" | "skipped";
  detail: string[];
}

/** What a build answers: the report, and the compiled files when every check passed. */
export interface BuildOutcome {
  report: BuildReport;
  compiled: Record<string, string> | null;
}

/** The report of one build, bound to its site, candidate and build. */
export interface BuildReport {
  site_id: string;
  candidate_digest: string;
  build_id: string;
  contract: number;
  sandbox_image: string;
  passed: boolean;
  checks: CheckResult[];
  /** SHA-256 of the canonical compiled output when passed. */
  compiled_digest: string | null;
}

/** What the build service is asked to build. */
export interface BuildRequest {
  site_id: string;
  candidate_digest: string;
  contract: number;
  sandbox_image: string;
  manifest: unknown;
  source: Record<string, string>;
}

/** Packages the offline store holds: the versions this repository pins. */
export async function offlineStore(): Promise<
  Map<string, { version: string; dir: string }>
> {
  const store = new Map<string, { version: string; dir: string }>();
  for (const name of ["preact", "preact-render-to-string"]) {
    const dir = `${ROOT}/node_modules/${name}`;
    try {
      const pkg = JSON.parse(await Deno.readTextFile(`${dir}/package.json`));
      store.set(name, { version: pkg.version, dir: await Deno.realPath(dir) });
    } catch {
      // Not installed here: a lockfile naming it fails the install check.
    }
  }
  return store;
}

let runnerBundle: Promise<string> | null = null;

function runnerCode(): Promise<string> {
  return runnerBundle ??= esbuild.build({
    entryPoints: [new URL("./runner.ts", import.meta.url).pathname],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    external: ["./template.js"],
    write: false,
    logLevel: "silent",
  }).then((r) => r.outputFiles[0].text);
}

/** One drawn call: its HTML, or why it failed. */
export type Drawn =
  | { name: string; ok: true; html: string }
  | { name: string; ok: false; error: string };

/**
 * Draws `calls` with a compiled template in the sandbox: a fresh directory holding only the
 * compiled code and the runner.
 */
export async function drawInSandbox(
  workRoot: string,
  template: string,
  calls: unknown[],
  limits: SandboxLimits = SANDBOX_LIMITS,
): Promise<{ ok: true; results: Drawn[] } | { ok: false; error: string }> {
  const run = await Deno.makeTempDir({ dir: workRoot, prefix: "run-" });
  try {
    await Deno.writeTextFile(`${run}/template.js`, template);
    await Deno.writeTextFile(`${run}/runner.js`, await runnerCode());
    const outcome = await runSandboxed(run, JSON.stringify({ calls }), limits);
    if (!outcome.ok) {
      return { ok: false, error: `${outcome.reason}: ${outcome.detail}` };
    }
    const answer = JSON.parse(outcome.stdout) as
      | { loaded: false; error: string }
      | { loaded: true; results: Drawn[] };
    if (!answer.loaded) {
      return { ok: false, error: `template.js does not load: ${answer.error}` };
    }
    return { ok: true, results: answer.results };
  } finally {
    await Deno.remove(run, { recursive: true }).catch(() => {});
  }
}

/** Options of {@link buildCandidate}. */
export interface BuildOptions {
  workRoot: string;
  buildId: string;
  limits?: SandboxLimits;
  /** Skips the browser checks (a unit test of the earlier steps); never set by the service. */
  browser?: boolean;
}

/** Runs every check on a candidate; never throws for a bad candidate, only for outages. */
export async function buildCandidate(
  request: BuildRequest,
  options: BuildOptions,
): Promise<BuildOutcome> {
  const checks: CheckResult[] = CHECKS.map((name) => ({
    name,
    status: "skipped",
    detail: [],
  }));
  const report: BuildReport = {
    site_id: request.site_id,
    candidate_digest: request.candidate_digest,
    build_id: options.buildId,
    contract: request.contract,
    sandbox_image: request.sandbox_image,
    passed: false,
    checks,
    compiled_digest: null,
  };
  const set = (
    name: CheckResult["name"],
    ok: boolean,
    detail: string[] = [],
  ) => {
    const check = checks.find((c) => c.name === name)!;
    check.status = ok ? "passed" : "failed";
    check.detail = detail.slice(0, 20).map((d) => d.slice(0, 500));
    return ok;
  };
  const fail = (): BuildOutcome => ({ report, compiled: null });

  // 1. Source rules, again: the build service trusts no caller.
  const manifest = readManifest(request.manifest);
  if (!manifest.ok) {
    set(
      "source_rules",
      false,
      manifest.issues.map((i) => `${i.path}: ${i.message}`),
    );
    return fail();
  }
  const rules = checkSourceRules(request.source, manifest.manifest);
  if (!rules.ok) {
    set("source_rules", false, [`${rules.rule}: ${rules.paths.join(", ")}`]);
    return fail();
  }
  set("source_rules", true);

  const work = await Deno.makeTempDir({
    dir: options.workRoot,
    prefix: "build-",
  });
  try {
    // 2. Install, offline: exactly the locked versions from the store, nothing fetched.
    let lock;
    try {
      lock = lockfileSchema.parse(JSON.parse(request.source[LOCKFILE_PATH]));
    } catch (e) {
      set("install", false, [
        `${LOCKFILE_PATH} does not read: ${
          e instanceof Error ? e.message.split("\n")[0] : e
        }`,
      ]);
      return fail();
    }
    const store = await offlineStore();
    const problems: string[] = [];
    for (const [name, version] of Object.entries(lock.packages)) {
      const held = store.get(name);
      if (!held) {
        problems.push(`${name}@${version} is not in the offline package store`);
      } else if (held.version !== version) {
        problems.push(
          `${name}@${version} is not in the offline package store (it holds ${held.version})`,
        );
      }
    }
    if (problems.length > 0) {
      set("install", false, problems);
      return fail();
    }
    for (const [path, text] of Object.entries(request.source)) {
      const file = `${work}/src/${path}`;
      await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), {
        recursive: true,
      });
      await Deno.writeTextFile(file, text);
    }
    await Deno.mkdir(`${work}/src/node_modules`, { recursive: true });
    for (const name of Object.keys(lock.packages)) {
      await Deno.symlink(
        store.get(name)!.dir,
        `${work}/src/node_modules/${name}`,
      );
    }
    await Deno.writeTextFile(
      `${work}/src/package.json`,
      JSON.stringify({ private: true, dependencies: lock.packages }),
    );
    await Deno.writeTextFile(
      `${work}/src/deno.json`,
      JSON.stringify({
        compilerOptions: {
          jsx: "react-jsx",
          jsxImportSource: "preact",
          lib: ["deno.window", "dom"],
        },
        nodeModulesDir: "manual",
        imports: { [PAGE_CONTRACT_MODULE]: PAGE_CONTRACT_PATH },
      }),
    );
    set(
      "install",
      true,
      Object.entries(lock.packages).map(([n, v]) => `${n}@${v}`),
    );

    // 3. Type check: reads the code, runs none of it.
    const entries = [
      manifest.manifest.entry,
      ...(manifest.manifest.registered_sections ?? []).map((s) => s.component),
    ].filter((p) => /\.(ts|tsx)$/.test(p));
    if (entries.length > 0) {
      const check = await new Deno.Command(Deno.execPath(), {
        args: [
          "check",
          "--quiet",
          "--no-remote",
          "--config",
          `${work}/src/deno.json`,
          ...entries,
        ],
        cwd: `${work}/src`,
        clearEnv: true,
        env: {
          NO_COLOR: "1",
          DENO_NO_UPDATE_CHECK: "1",
          HOME: Deno.env.get("HOME") ?? "/tmp",
          ...(Deno.env.get("DENO_DIR")
            ? { DENO_DIR: Deno.env.get("DENO_DIR")! }
            : {}),
        },
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(90_000),
      }).output();
      if (!check.success) {
        const text = new TextDecoder().decode(check.stderr) +
          new TextDecoder().decode(check.stdout);
        const lines = text.split("\n").filter((l) =>
          /error|TS\d+/.test(l) || l.includes("at file")
        )
          .map((l) =>
            l.replaceAll(`file://${work}/src/`, "").replaceAll(
              `${work}/src/`,
              "",
            ).trim()
          );
        set(
          "type_check",
          false,
          lines.length > 0 ? lines : ["Type checking failed"],
        );
        return fail();
      }
    }
    set("type_check", true);

    // 4. Build: one self-contained module; registered components import the page contract only.
    let built: esbuild.BuildResult<{ write: false; metafile: true }>;
    try {
      built = await esbuild.build({
        absWorkingDir: `${work}/src`,
        entryPoints: [`${work}/src/${manifest.manifest.entry}`],
        bundle: true,
        format: "esm",
        platform: "neutral",
        mainFields: ["module", "main"],
        target: "es2022",
        jsx: "automatic",
        jsxImportSource: "preact",
        alias: { [PAGE_CONTRACT_MODULE]: PAGE_CONTRACT_PATH },
        write: false,
        metafile: true,
        outfile: `${work}/out/template.js`,
        logLevel: "silent",
      });
    } catch (e) {
      const errors = (e as { errors?: esbuild.Message[] }).errors ?? [];
      set(
        "build",
        false,
        errors.length > 0
          ? errors.map((m) =>
            `${
              m.location
                ? `${
                  m.location.file.replace(`${work}/src/`, "")
                }:${m.location.line}: `
                : ""
            }${m.text}`
          )
          : [String(e)],
      );
      return fail();
    }
    const importProblems: string[] = [];
    for (const [input, meta] of Object.entries(built.metafile.inputs)) {
      if (!input.startsWith(REGISTERED_COMPONENT_DIR)) continue;
      for (const imported of meta.imports) {
        const ok = imported.original === PAGE_CONTRACT_MODULE ||
          imported.original === "preact/jsx-runtime" ||
          imported.path.includes("/core/pages/");
        if (!ok) {
          importProblems.push(
            `${input} imports "${
              imported.original ?? imported.path
            }": a registered component imports only ${PAGE_CONTRACT_MODULE}`,
          );
        }
      }
    }
    if (importProblems.length > 0) {
      set("build", false, importProblems);
      return fail();
    }
    const compiled: Record<string, string> = {
      "template.js": built.outputFiles[0].text,
    };
    for (const [path, text] of Object.entries(request.source)) {
      if (path.startsWith("assets/")) compiled[path] = text;
    }
    set("build", true, [`template.js ${compiled["template.js"].length} bytes`]);

    // 5. The fixtures, drawn in the sandbox: a directory holding only the compiled code.
    const calls = [
      ...FIXTURE_NAMES.flatMap((n) => fixtureCalls(n)),
      ...otherCalls(),
    ];
    const answer = await drawInSandbox(
      options.workRoot,
      compiled["template.js"],
      calls,
      options.limits,
    );
    if (!answer.ok) {
      set("fixtures", false, [answer.error]);
      return fail();
    }
    const drawn: { name: string; html: string }[] = [];
    const fixtureProblems: string[] = [];
    for (const r of answer.results) {
      if (!r.ok) fixtureProblems.push(`${r.name}: ${r.error}`);
      else if (!/^\s*<!doctype html>/i.test(r.html)) {
        fixtureProblems.push(`${r.name}: does not start with <!doctype html>`);
      } else drawn.push({ name: r.name, html: r.html });
    }
    if (fixtureProblems.length > 0) {
      set("fixtures", false, fixtureProblems);
      return fail();
    }
    set("fixtures", true, drawn.map((d) => `${d.name} ${d.html.length} bytes`));

    // 6 and 7. Accessibility and widths, in a browser without network.
    if (options.browser !== false) {
      const assets = Object.fromEntries(
        Object.entries(compiled).filter(([k]) => k.startsWith("assets/")),
      );
      const found = await checkInBrowser(drawn, assets);
      const a11y = set(
        "accessibility",
        found.accessibility.length === 0,
        found.accessibility,
      );
      const widths = set("widths", found.widths.length === 0, found.widths);
      if (!a11y || !widths) return fail();
    }
    report.passed = true;
    report.compiled_digest = await compiledDigest(compiled);
    return { report, compiled };
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}
