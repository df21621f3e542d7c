// Manifest, source rules, dependency settings and identities of template candidates, without a
// build: TPL-003, TPL-021, TPL-022, TPL-023, TPL-024, TPL-026, TPL-032.
import { deepEqual, equal, ok } from "node:assert/strict";
import { canonicalJson } from "../pages/mod.ts";
import { sha256HexSync } from "../kv/digest.ts";
import { candidateDigest, sectionIdentity } from "./candidates.ts";
import { readManifest, type TemplateManifest } from "./manifest.ts";
import { missingSettings, settingUsable } from "./settings.ts";
import { checkSourceRules, SOURCE_LIMITS } from "./source_rules.ts";

const manifest: TemplateManifest = { name: "T", entry: "template.tsx" };
const base = {
  "template.tsx": "export default {}",
  "template.lock.json": "{}",
};

Deno.test("TPL-003: source rules refuse case-colliding paths, dist and node_modules files and unpaired surrogates", () => {
  deepEqual(checkSourceRules({ ...base, "A.ts": "", "a.ts": "" }, manifest), {
    ok: false,
    code: "template_source_refused",
    rule: "case_collision",
    paths: ["A.ts", "a.ts"],
  });
  equal(
    (checkSourceRules({ ...base, "dist/x.js": "" }, manifest) as {
      rule: string;
    }).rule,
    "build_output",
  );
  equal(
    (checkSourceRules({ ...base, "lib/node_modules/x.js": "" }, manifest) as {
      rule: string;
    }).rule,
    "dependency_folder",
  );
  equal(
    (checkSourceRules({ ...base, "x.ts": "a\ud800b" }, manifest) as {
      rule: string;
    }).rule,
    "unpaired_surrogate",
  );
  equal(
    (checkSourceRules({ ...base, "x\udc00.ts": "" }, manifest) as {
      rule: string;
    }).rule,
    "unpaired_surrogate",
  );
  // A paired surrogate (an emoji) is ordinary text.
  ok(checkSourceRules({ ...base, "x.ts": "// 🍞" }, manifest).ok);
  equal(
    (checkSourceRules({ ...base, "../x.ts": "" }, manifest) as { rule: string })
      .rule,
    "invalid_path",
  );
  equal(
    (checkSourceRules({ "template.tsx": "" }, manifest) as { rule: string })
      .rule,
    "missing_file",
  );
});

Deno.test("source limits hold at their edges: files, one file's bytes", () => {
  const many = (n: number) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}.ts`, ""]));
  ok(
    checkSourceRules({ ...base, ...many(SOURCE_LIMITS.files - 2) }, manifest)
      .ok,
  );
  equal(
    (checkSourceRules(
      { ...base, ...many(SOURCE_LIMITS.files - 1) },
      manifest,
    ) as { rule: string }).rule,
    "too_many_files",
  );
  ok(
    checkSourceRules(
      { ...base, "big.ts": "x".repeat(SOURCE_LIMITS.fileBytes) },
      manifest,
    ).ok,
  );
  equal(
    (checkSourceRules({
      ...base,
      "big.ts": "x".repeat(SOURCE_LIMITS.fileBytes + 1),
    }, manifest) as { rule: string }).rule,
    "file_too_large",
  );
});

const definition = {
  key: "hours",
  label: "Hours",
  description: "",
  variants: ["default"],
  props: { note: { kind: "text" } },
};

Deno.test("TPL-023 TPL-024: registered sections declare key, label, description, variants and props of the known kinds; choice 2 to 12 options; heading reserved", () => {
  const withProps = (props: unknown) =>
    readManifest({
      ...manifest,
      registered_sections: [{
        definition: { ...definition, props },
        component: "sections/h.tsx",
      }],
    });
  ok(
    withProps({
      a: { kind: "text" },
      b: { kind: "multiline" },
      c: { kind: "link" },
      d: { kind: "media" },
      e: { kind: "toggle" },
      f: { kind: "list", props: { x: { kind: "text" } } },
    }).ok,
  );
  const options = (n: number) => ({
    c: {
      kind: "choice",
      options: Array.from({ length: n }, (_, i) => `o${i}`),
    },
  });
  ok(withProps(options(2)).ok);
  ok(withProps(options(12)).ok);
  equal(withProps(options(1)).ok, false);
  const thirteen = withProps(options(13));
  equal(thirteen.ok, false);
  equal((thirteen as { code: string }).code, "invalid_template_manifest");
  equal(withProps({ heading: { kind: "text" } }).ok, false);
  equal(withProps({ a: { kind: "html" } }).ok, false);
  // The component lives under sections/.
  equal(
    readManifest({
      ...manifest,
      registered_sections: [{ definition, component: "lib/h.tsx" }],
    }).ok,
    false,
  );
  // Closed objects: an unknown key is refused.
  equal(readManifest({ ...manifest, extra: 1 }).ok, false);
});

Deno.test("TPL-032: manifest regions are 1 to 8 with unique keys of letters, digits, _ or - up to 64 and plain labels up to 60", () => {
  const regions = (n: number) =>
    Array.from(
      { length: n },
      (_, i) => ({ key: `r${i}`, label: `Region ${i}` }),
    );
  ok(readManifest({ ...manifest, regions: regions(1) }).ok);
  ok(readManifest({ ...manifest, regions: regions(8) }).ok);
  const nine = readManifest({ ...manifest, regions: regions(9) });
  equal(nine.ok, false);
  equal((nine as { code: string }).code, "invalid_template_manifest");
  equal(readManifest({ ...manifest, regions: [] }).ok, false);
  ok(
    readManifest({
      ...manifest,
      regions: [{ key: "k".repeat(64), label: "l".repeat(60) }],
    }).ok,
  );
  equal(
    readManifest({
      ...manifest,
      regions: [{ key: "k".repeat(65), label: "L" }],
    }).ok,
    false,
  );
  equal(
    readManifest({
      ...manifest,
      regions: [{ key: "k", label: "l".repeat(61) }],
    }).ok,
    false,
  );
  equal(
    readManifest({ ...manifest, regions: [{ key: "a b", label: "L" }] }).ok,
    false,
  );
  equal(
    readManifest({ ...manifest, regions: [{ key: "k", label: "<b>L</b>" }] })
      .ok,
    false,
  );
  equal(
    readManifest({
      ...manifest,
      regions: [{ key: "k", label: "A" }, { key: "k", label: "B" }],
    }).ok,
    false,
  );
});

Deno.test("TPL-026: a registered section's identity is the SHA-256 of the canonical JSON of { definition, source }", () => {
  const source = "export function H() { return null; }";
  equal(
    sectionIdentity(definition, source),
    sha256HexSync(canonicalJson({ definition, source })),
  );
  // Key order does not change it; one byte of the component does.
  const reordered = {
    props: definition.props,
    variants: definition.variants,
    description: "",
    label: "Hours",
    key: "hours",
  };
  equal(
    sectionIdentity(reordered, source),
    sectionIdentity(definition, source),
  );
  ok(
    sectionIdentity(definition, source + " ") !==
      sectionIdentity(definition, source),
  );
  equal(
    candidateDigest(manifest, base),
    sha256HexSync(canonicalJson({ manifest, source: base })),
  );
});

Deno.test("TPL-021 TPL-022: a setting counts as unset when a key is short, an origin is not bare https or loopback http, or the image is not pinned by digest", () => {
  const key = "k".repeat(32);
  const good = {
    TEMPLATE_BUILD_SERVICE_URL: "https://build.example",
    TEMPLATE_BUILD_SERVICE_KEY: key,
    TEMPLATE_SANDBOX_IMAGE: `registry.example/sandbox@sha256:${"a".repeat(64)}`,
    TEMPLATE_ARTIFACTS: "/var/lib/stave/templates",
  };
  deepEqual(missingSettings(good, "upload"), []);
  deepEqual(
    missingSettings(
      { ...good, TEMPLATE_BUILD_SERVICE_KEY: "k".repeat(31) },
      "upload",
    ),
    ["TEMPLATE_BUILD_SERVICE_KEY"],
  );
  deepEqual(
    missingSettings({ ...good, TEMPLATE_SANDBOX_IMAGE: "node:20" }, "upload"),
    ["TEMPLATE_SANDBOX_IMAGE"],
  );
  for (
    const url of [
      "http://build.example",
      "https://build.example/path",
      "https://u:p@build.example",
      "ftp://build.example",
    ]
  ) {
    equal(settingUsable("TEMPLATE_BUILD_SERVICE_URL", url), false, url);
  }
  for (
    const url of [
      "http://localhost:8003",
      "http://127.0.0.1:9",
      "http://[::1]:8003",
      "https://build.example/",
    ]
  ) {
    equal(settingUsable("TEMPLATE_BUILD_SERVICE_URL", url), true, url);
  }
  // TPL-019: preview names its own service; TPL-020: accept needs only the artifacts.
  deepEqual(missingSettings(good, "preview"), [
    "TEMPLATE_PREVIEW_SERVICE_URL",
    "TEMPLATE_PREVIEW_SERVICE_KEY",
  ]);
  deepEqual(missingSettings(good, "accept"), []);
  deepEqual(missingSettings({}, "accept"), ["TEMPLATE_ARTIFACTS"]);
  deepEqual(missingSettings(good, "generate"), [
    "TEMPLATE_INFERENCE_URL",
    "TEMPLATE_GENERATION_MODEL",
  ]);
  // DLV-003 DLV-004: delivery settings.
  equal(settingUsable("MANAGED_RENDER_INSTALLATION_ID", "ab"), false);
  equal(settingUsable("MANAGED_RENDER_INSTALLATION_ID", "abc"), true);
  equal(settingUsable("MANAGED_RENDER_INSTALLATION_ID", "a".repeat(64)), false);
  equal(settingUsable("MANAGED_RENDER_INSTALLATION_ID", "Abc"), false);
});
