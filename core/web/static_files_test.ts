// Static files: compressed as the browser accepts (brotli, then gzip), `Vary: Accept-Encoding`,
// immutable for hashed build output and for the stylesheet at its content address (issue 43).
import { equal, ok } from "node:assert/strict";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { Hono } from "hono";
import { serveStaticFile, stylesheetHref } from "./static_files.ts";

async function staticApp() {
  const dir = await Deno.makeTempDir({ prefix: "stave-static-" });
  await Deno.mkdir(`${dir}/build`);
  const css = "body { color: red; }\n".repeat(200);
  await Deno.writeTextFile(`${dir}/admin.css`, css);
  await Deno.writeTextFile(
    `${dir}/build/App-ABC123.js`,
    "let a = 1;\n".repeat(300),
  );
  await Deno.writeTextFile(`${dir}/small.txt`, "tiny");
  const app = new Hono();
  app.get(
    "/_static/*",
    async (c) => (await serveStaticFile(c, dir)) ?? c.notFound(),
  );
  return { app, dir, css };
}

Deno.test("static files are sent brotli or gzip compressed as Accept-Encoding allows, with Vary", async () => {
  const { app, dir, css } = await staticApp();
  try {
    const br = await app.request("/_static/admin.css", {
      headers: { "accept-encoding": "gzip, deflate, br" },
    });
    equal(br.headers.get("content-encoding"), "br");
    equal(br.headers.get("vary"), "Accept-Encoding");
    const brBytes = new Uint8Array(await br.arrayBuffer());
    ok(brBytes.byteLength < css.length / 10, "brotli shrinks the stylesheet");
    equal(new TextDecoder().decode(brotliDecompressSync(brBytes)), css);

    const gz = await app.request("/_static/admin.css", {
      headers: { "accept-encoding": "gzip, br;q=0" },
    });
    equal(gz.headers.get("content-encoding"), "gzip");
    equal(
      new TextDecoder().decode(
        gunzipSync(new Uint8Array(await gz.arrayBuffer())),
      ),
      css,
    );

    const plain = await app.request("/_static/admin.css");
    equal(plain.headers.get("content-encoding"), null);
    equal(plain.headers.get("vary"), "Accept-Encoding");
    equal(await plain.text(), css);

    // A file too small to gain from compression is sent as it is.
    const small = await app.request("/_static/small.txt", {
      headers: { "accept-encoding": "br" },
    });
    equal(small.headers.get("content-encoding"), null);
    equal(await small.text(), "tiny");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("hashed bundles and the stylesheet at its content address are immutable; the bare address is not", async () => {
  const { app, dir } = await staticApp();
  try {
    const bundle = await app.request("/_static/build/App-ABC123.js");
    equal(
      bundle.headers.get("cache-control"),
      "public, max-age=31536000, immutable",
    );
    await bundle.arrayBuffer();
    const href = stylesheetHref(dir, "admin.css");
    ok(/^\/_static\/admin\.css\?v=[0-9a-f]+$/.test(href), href);
    const current = await app.request(href);
    equal(
      current.headers.get("cache-control"),
      "public, max-age=31536000, immutable",
    );
    await current.arrayBuffer();
    const stale = await app.request("/_static/admin.css?v=0000");
    equal(stale.headers.get("cache-control"), "public, max-age=300");
    await stale.arrayBuffer();
    const bare = await app.request("/_static/admin.css");
    equal(bare.headers.get("cache-control"), "public, max-age=300");
    await bare.arrayBuffer();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
