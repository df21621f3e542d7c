// The renderer draws the active release of its host in the sandbox, and the built-in template
// when there is none (TPL-005, DLV-001, DLV-005, DLV-018).
import { equal, match, ok } from "node:assert/strict";
import {
  FIXTURE_NAMES,
  fixtureCalls,
  otherCalls,
} from "../../core/templates/fixtures.ts";
import { releaseTemplate } from "../../services/renderer/release.ts";
import { builtInTemplate } from "../../services/renderer/template/builtin/mod.tsx";
import type { PageView } from "../../services/renderer/template/mod.ts";
import { buildCandidate } from "../../services/templates/pipeline.ts";
import { exampleUpload } from "./example.ts";
import { readReleasedBuiltIn } from "../../core/templates/builtin.ts";

Deno.test("TPL-005 DLV-005 DLV-018: the renderer draws its host's active release, re-reads it at most every 30 s, and falls back to the built-in template", async () => {
  const work = await Deno.makeTempDir({ prefix: "stave-release-" });
  try {
    const built = await buildCandidate({
      site_id: "site",
      candidate_digest: "0".repeat(64),
      contract: 5,
      sandbox_image: `x@sha256:${"a".repeat(64)}`,
      ...(await exampleUpload()),
    }, { workRoot: work, buildId: "b", browser: false });
    ok(built.compiled);
    let answer: { status: number; body?: unknown } = {
      status: 200,
      body: {
        number: 3,
        origin: "https://www.bakery.example",
        digest: "d",
        files: built.compiled,
      },
    };
    let asked = 0;
    let now = 0;
    const tpl = releaseTemplate({
      url: "http://deploy.test",
      key: "k".repeat(32),
      host: "www.bakery.example",
      fallback: builtInTemplate,
      workRoot: work,
      clock: () => now,
      fetch: (input) => {
        asked++;
        equal(
          String(input),
          "http://deploy.test/releases/active?host=www.bakery.example",
        );
        return Promise.resolve(
          Response.json(answer.body ?? {}, { status: answer.status }),
        );
      },
    });
    const view = fixtureCalls("ordinary")[0].view as unknown as PageView;
    view.site.hrefOf = () => "/";
    const drawn = await tpl.page(view);
    // The example template's own markup, drawn in the sandbox.
    match(drawn, /<main id="main"><section aria-labelledby="h-intro"><h1>/);
    match(drawn, /Fresh bread every morning/);
    const css = await tpl.asset!("style.css");
    equal(css?.type, "text/css; charset=utf-8");
    // Reused for 30 s: no new question to the deploy service.
    answer = { status: 404 };
    now = 29_999;
    await tpl.page(view);
    equal(asked, 1);
    // After that, no active release: the built-in template draws.
    now = 30_000;
    const builtin = await tpl.page(view);
    equal(asked, 2);
    ok(builtin !== drawn);
    equal(builtin, builtInTemplate.page(view));
    // A release pinned to another origin is never drawn on this host.
    answer = {
      status: 200,
      body: {
        number: 4,
        origin: "https://other.example",
        digest: "d",
        files: built.compiled,
      },
    };
    now = 60_000;
    equal(await tpl.page(view), builtInTemplate.page(view));
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test("TPL-017: a release of the released built-in draws in the sandbox exactly what the built-in template draws in process, and serves its stylesheet and script", async () => {
  const work = await Deno.makeTempDir({ prefix: "stave-release-" });
  try {
    const read = await readReleasedBuiltIn();
    ok(read.ok);
    const files = JSON.parse(read.released.texts["compiled.json"]);
    const tpl = releaseTemplate({
      url: "http://deploy.test",
      key: "k".repeat(32),
      host: "www.bakery.example",
      fallback: builtInTemplate,
      workRoot: work,
      fetch: () =>
        Promise.resolve(Response.json({
          number: 1,
          origin: "https://www.bakery.example",
          digest: "d",
          files,
        })),
    });
    const calls = [
      ...FIXTURE_NAMES.flatMap((n) => fixtureCalls(n)),
      ...otherCalls(),
    ];
    for (const call of calls) {
      const view = call.view as unknown as PageView;
      // The address builder the sandbox's runner gives the template.
      view.site.hrefOf = (item) => {
        const prefix = item.locale === view.site.defaultLocale
          ? ""
          : `/${item.locale}`;
        if (item.model === "pages") {
          return item.slug === "home"
            ? prefix || "/"
            : `${prefix}/${item.slug}`;
        }
        return `${prefix}/${item.model}/${item.slug}`;
      };
      const kind = call.kind as "page";
      equal(await tpl[kind](view), builtInTemplate[kind](view), call.name);
    }
    for (const asset of builtInTemplate.assets) {
      const served = await tpl.asset!(asset.name);
      equal(served?.body, asset.body);
      equal(served?.type, asset.type);
    }
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
