// Plugin catalogues served by a real HTTP server on 127.0.0.1 (PLG-032, OUT-024): GET /api/plugins/catalogue,
// each limit at its edge, the rules that leave a catalogue out whole, and the Discover section of Settings → Plugins.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { createSession } from "../../core/auth/session_store.ts";
import {
  type CatalogueReader,
  readCatalogue,
} from "../../core/plugins/catalogues.ts";
import { outboundFetch } from "../../core/plugins/outbound.ts";
import { LIMITS } from "../../core/plugins/protocol.ts";
import { openTestApp, type TestApp } from "../support/app.ts";
import { siteWithPosts } from "../support/entries.ts";
import {
  catalogueEntries,
  catalogueEntry,
  type CatalogueServer,
  startCatalogueServer,
} from "./catalogue_server.ts";
import { SITE_HOST } from "./world.ts";

const CSRF = "c".repeat(43);

interface CatalogueWorld extends TestApp {
  server: CatalogueServer;
  siteId: string;
  session: string;
  sessionFor(userId: string): Promise<string>;
  /** GETs a path as the signed-in administrator (or `session`; `null` sends no cookie). */
  get(path: string, session?: string | null): Promise<Response>;
}

/** A service whose `PLUGIN_CATALOGUES` are what `setup` answers after it set the server's pages. */
async function withCatalogueWorld(
  setup: (server: CatalogueServer) => string[],
  fn: (w: CatalogueWorld) => Promise<void>,
): Promise<void> {
  const server = startCatalogueServer();
  try {
    const catalogues = setup(server);
    const t = await openTestApp({
      env: {
        ENVIRONMENT: "development",
        PLUGIN_DEV_ORIGINS: server.origin,
        PLUGIN_CATALOGUES: catalogues.join(","),
        PUBLIC_URL: `http://${SITE_HOST}`,
      },
    });
    try {
      const { siteId, adminId } = await siteWithPosts(
        t.services,
        SITE_HOST,
        "admin@plugins.test",
      );
      const sessionFor = async (userId: string) =>
        (await createSession({ db: t.services.db, clock: t.clock }, userId))
          .token;
      const session = await sessionFor(adminId);
      await fn({
        ...t,
        server,
        siteId,
        session,
        sessionFor,
        get(path, as = session) {
          const headers: Record<string, string> = { host: SITE_HOST };
          if (as !== null) {
            headers.cookie = `stave_session=${as}; stave_csrf=${CSRF}`;
          }
          if (!path.startsWith("/api/")) headers.accept = "text/html";
          return Promise.resolve(
            t.app.request(`http://${SITE_HOST}${path}`, { headers }),
          );
        },
      });
    } finally {
      await t.close();
    }
  } finally {
    await server.close();
  }
}

interface Listed {
  entries: {
    catalogue: string;
    name: string;
    description: string | null;
    manifest_url: string;
  }[];
  left_out: { catalogue: string; reason: string; message: string }[];
}

async function discover(w: CatalogueWorld): Promise<Listed> {
  const res = await w.get("/api/plugins/catalogue");
  equal(res.status, 200);
  equal(res.headers.get("cache-control"), "no-store");
  return (await res.json()).data;
}

/** The names listed from `catalogue`. */
function namesFrom(listed: Listed, catalogue: string): string[] {
  return listed.entries.filter((e) => e.catalogue === catalogue).map((e) =>
    e.name
  );
}

/** Pages of `per` entries, `total` in all, named `prefix-n`. */
function split(origin: string, prefix: string, total: number, per = 100) {
  const all = catalogueEntries(origin, prefix, total);
  const pages = [];
  for (let i = 0; i < all.length; i += per) pages.push(all.slice(i, i + per));
  return pages;
}

Deno.test("GET /api/plugins/catalogue lists the entries of every configured catalogue, across pages, with their catalogue (PLG-032)", () =>
  withCatalogueWorld((s) => {
    s.chain("/a.json", [
      [
        catalogueEntry(s.origin, "Publisher", "Schedules publishing"),
        catalogueEntry(s.origin, "Alt text"),
      ],
      [catalogueEntry(s.origin, "Stock photos")],
    ]);
    s.chain("/b.json", [[catalogueEntry(s.origin, "Translator")]]);
    return [`${s.origin}/a.json`, `${s.origin}/b.json`];
  }, async (w) => {
    const listed = await discover(w);
    const a = `${w.server.origin}/a.json`;
    deepEqual(listed.entries, [
      {
        catalogue: a,
        name: "Publisher",
        description: "Schedules publishing",
        manifest_url: `${w.server.origin}/plugins/Publisher/manifest.json`,
      },
      {
        catalogue: a,
        name: "Alt text",
        description: null,
        manifest_url: `${w.server.origin}/plugins/Alt%20text/manifest.json`,
      },
      {
        catalogue: a,
        name: "Stock photos",
        description: null,
        manifest_url: `${w.server.origin}/plugins/Stock%20photos/manifest.json`,
      },
      {
        catalogue: `${w.server.origin}/b.json`,
        name: "Translator",
        description: null,
        manifest_url: `${w.server.origin}/plugins/Translator/manifest.json`,
      },
    ]);
    deepEqual(listed.left_out, []);
  }));

Deno.test("catalogue pages: 5 are followed, a 6th leaves the catalogue out whole without being read (OUT-024)", () =>
  withCatalogueWorld((s) => {
    s.chain("/five.json", split(s.origin, "five", 5, 1));
    s.chain("/six.json", split(s.origin, "six", 6, 1));
    return [`${s.origin}/five.json`, `${s.origin}/six.json`];
  }, async (w) => {
    const listed = await discover(w);
    const five = `${w.server.origin}/five.json`;
    const six = `${w.server.origin}/six.json`;
    equal(LIMITS.catalogues.max_pages, 5);
    deepEqual(namesFrom(listed, five), [0, 1, 2, 3, 4].map((i) => `five-${i}`));
    deepEqual(namesFrom(listed, six), [], "nothing of it is listed");
    equal(listed.left_out.length, 1);
    equal(listed.left_out[0].catalogue, six);
    equal(listed.left_out[0].reason, "catalogue_too_many_pages");
    ok(!w.server.requests.includes("/six.json?page=6"), "page 6 never read");
  }));

Deno.test("catalogue entries per page: 100 accepted, 101 leave the catalogue out whole (OUT-024)", () =>
  withCatalogueWorld((s) => {
    s.chain("/100.json", [catalogueEntries(s.origin, "ok", 100)]);
    s.chain("/101.json", [catalogueEntries(s.origin, "over", 101)]);
    return [`${s.origin}/100.json`, `${s.origin}/101.json`];
  }, async (w) => {
    const listed = await discover(w);
    equal(namesFrom(listed, `${w.server.origin}/100.json`).length, 100);
    equal(listed.entries.length, 100, "nothing of the 101 page is listed");
    deepEqual(listed.left_out.map((l) => [l.catalogue, l.reason]), [
      [`${w.server.origin}/101.json`, "catalogue_page_too_many_entries"],
    ]);
  }));

Deno.test("catalogue entries in all: 200 accepted, 201 leave the catalogue out whole (OUT-024)", () =>
  withCatalogueWorld((s) => {
    s.chain("/200.json", split(s.origin, "ok", 200));
    s.chain("/201.json", split(s.origin, "over", 201));
    return [`${s.origin}/200.json`, `${s.origin}/201.json`];
  }, async (w) => {
    const listed = await discover(w);
    equal(namesFrom(listed, `${w.server.origin}/200.json`).length, 200);
    equal(listed.entries.length, 200, "nothing of the 201 catalogue is listed");
    deepEqual(listed.left_out.map((l) => [l.catalogue, l.reason]), [
      [`${w.server.origin}/201.json`, "catalogue_too_many_entries"],
    ]);
  }));

/** A one-entry page padded with JSON whitespace to exactly `bytes` bytes. */
function pageOfBytes(origin: string, name: string, bytes: number): string {
  const json = JSON.stringify({
    entries: [catalogueEntry(origin, name)],
    next: null,
  });
  return json + " ".repeat(bytes - json.length);
}

Deno.test("catalogue page size: 128 KiB (131072 bytes) accepted, one byte more leaves the catalogue out (OUT-024)", () =>
  withCatalogueWorld((s) => {
    equal(LIMITS.catalogues.max_page_bytes, 131_072);
    s.set("/edge.json", { body: pageOfBytes(s.origin, "edge", 131_072) });
    s.set("/over.json", { body: pageOfBytes(s.origin, "over", 131_073) });
    return [`${s.origin}/edge.json`, `${s.origin}/over.json`];
  }, async (w) => {
    const listed = await discover(w);
    deepEqual(listed.entries.map((e) => e.name), ["edge"]);
    deepEqual(listed.left_out.map((l) => [l.catalogue, l.reason]), [
      [`${w.server.origin}/over.json`, "catalogue_page_too_large"],
    ]);
  }));

Deno.test("a catalogue on a blocked destination, or listing a manifest URL on one, is left out with its reason; the others still list (OUT-024, OUT-001)", () =>
  withCatalogueWorld((s) => {
    s.chain("/good.json", [[catalogueEntry(s.origin, "Good")]]);
    s.chain("/private.json", [[
      catalogueEntry(s.origin, "Fine"),
      { name: "Inside", manifest_url: "https://192.168.1.10/manifest.json" },
    ]]);
    s.chain("/plain.json", [[
      { name: "Plain", manifest_url: "http://plugin.example.com/m.json" },
    ]]);
    return [
      `${s.origin}/good.json`,
      "https://10.0.0.1/catalogue.json",
      `${s.origin}/private.json`,
      `${s.origin}/plain.json`,
    ];
  }, async (w) => {
    const listed = await discover(w);
    deepEqual(listed.entries.map((e) => e.name), ["Good"]);
    deepEqual(listed.left_out.map((l) => [l.catalogue, l.reason]), [
      ["https://10.0.0.1/catalogue.json", "url_destination_refused"],
      [`${w.server.origin}/private.json`, "catalogue_entry_refused"],
      [`${w.server.origin}/plain.json`, "catalogue_entry_refused"],
    ]);
    match(listed.left_out[1].message, /"Inside"/);
  }));

Deno.test("readCatalogue() leaves a catalogue out for bad JSON, an unknown key, a redirect, a 404, a repeated page or a next page elsewhere (OUT-024)", async () => {
  const s = startCatalogueServer();
  try {
    const reader: CatalogueReader = {
      policy: { development: true, devOrigins: [s.origin] },
      call: (request) =>
        outboundFetch(request, {
          policy: { development: true, devOrigins: [s.origin] },
        }),
    };
    s.set("/garbage.json", { body: "{ entries: nope" });
    s.set("/unknown.json", { json: { entries: [], next: null, extra: 1 } });
    s.set("/entry-key.json", {
      json: {
        entries: [{ ...catalogueEntry(s.origin, "X"), price: 3 }],
        next: null,
      },
    });
    s.set("/moved.json", {
      status: 302,
      body: "",
      headers: { location: `${s.origin}/good.json` },
    });
    s.set("/loop.json", {
      json: { entries: [], next: `${s.origin}/loop2.json` },
    });
    s.set("/loop2.json", {
      json: { entries: [], next: `${s.origin}/loop.json` },
    });
    s.set("/away.json", {
      json: { entries: [], next: "https://plugins.example.com/2.json" },
    });
    const cases: [string, string][] = [
      ["/garbage.json", "catalogue_page_invalid"],
      ["/unknown.json", "catalogue_page_invalid"],
      ["/entry-key.json", "catalogue_page_invalid"],
      ["/moved.json", "remote_redirect_refused"],
      ["/missing.json", "plugin_unreachable"],
      ["/loop.json", "catalogue_page_repeated"],
      ["/away.json", "catalogue_page_invalid"],
    ];
    for (const [path, reason] of cases) {
      const read = await readCatalogue(`${s.origin}${path}`, reader);
      equal(read.ok ? "listed" : read.reason, reason, path);
    }
    ok(
      !s.requests.some((r) => r.includes("good")),
      "the redirect is not followed",
    );
  } finally {
    await s.close();
  }
});

Deno.test("GET /api/plugins/catalogue is refused without a session (401) or without site:plugins (403), and reads no catalogue (PLG-032)", () =>
  withCatalogueWorld((s) => {
    s.chain("/a.json", [[catalogueEntry(s.origin, "Publisher")]]);
    return [`${s.origin}/a.json`];
  }, async (w) => {
    const anonymous = await w.get("/api/plugins/catalogue", null);
    equal(anonymous.status, 401);
    equal((await anonymous.json()).error.code, "unauthenticated");
    const editor = await w.services.db.selectFrom("users").select("id")
      .executeTakeFirstOrThrow();
    await w.services.db.updateTable("roles").set({
      permissions: JSON.stringify({ models: { "*": ["read"] }, system: [] }),
    }).where("site_id", "=", w.siteId).execute();
    const refused = await w.get(
      "/api/plugins/catalogue",
      await w.sessionFor(editor.id),
    );
    equal(refused.status, 403);
    equal((await refused.json()).error.code, "missing_permission");
    deepEqual(w.server.requests, [], "no catalogue was read");
  }));

Deno.test("Settings → Plugins: Discover lists catalogue entries and left-out catalogues, and an entry's link fills the install form (PLG-032)", () =>
  withCatalogueWorld((s) => {
    s.chain("/a.json", [[
      catalogueEntry(s.origin, "Publisher", "Schedules <b>publishing</b>"),
    ]]);
    s.set("/broken.json", { body: "not json" });
    return [`${s.origin}/a.json`, `${s.origin}/broken.json`];
  }, async (w) => {
    const plain = await (await w.get("/admin/settings/plugins")).text();
    match(plain, /Show plugins from catalogues/);
    deepEqual(w.server.requests, [], "catalogues are read only when asked");

    const res = await w.get("/admin/settings/plugins?discover=1");
    equal(res.status, 200);
    const html = await res.text();
    match(html, /Discover plugins/);
    // A catalogue's words are text, never markup.
    match(html, /Schedules &lt;b>publishing&lt;\/b>/);
    ok(!html.includes("<b>publishing"));
    const manifestUrl = `${w.server.origin}/plugins/Publisher/manifest.json`;
    const link = `/admin/settings/plugins?manifest_url=${
      encodeURIComponent(manifestUrl)
    }#manifest-url`;
    ok(html.includes(`href="${link.replaceAll("&", "&amp;")}"`), link);
    match(html, /Use for Publisher/);
    match(html, /Catalogues left out/);
    match(
      html,
      /broken\.json<\/code><\/td><td>A page is not a valid catalogue page/,
    );
    match(html, /catalogue_page_invalid/);

    const filled = await (await w.get(link.split("#")[0])).text();
    match(
      filled,
      new RegExp(
        `id="manifest-url"[^>]*value="${manifestUrl.replace(/[.?]/g, "\\$&")}"`,
      ),
    );
  }));
