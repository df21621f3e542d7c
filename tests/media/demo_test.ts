// The demo site ships generated cover images: uploaded on first start and expanded in GET /v1/posts/<slug>.
import { equal, match } from "node:assert/strict";
import { FileStorage } from "../../core/media/file_storage.ts";
import { ensureDemoSite } from "../../core/sites/demo_site.ts";
import { openTestApp } from "../support/app.ts";

Deno.test("the demo site's posts have real generated cover images served by the service", async () => {
  const dir = await Deno.makeTempDir({ prefix: "stave-demo-" });
  const t = await openTestApp({ env: { DEMO_SITE: "true", DATA_DIR: dir } });
  try {
    t.services.media = new FileStorage(`${dir}/media`);
    await ensureDemoSite(t.services);
    const files = await t.services.db.selectFrom("media_files").select([
      "kind",
      "width",
    ]).execute();
    equal(files.length, 4);
    equal(files.every((f) => f.kind === "image" && f.width === 480), true);
    const list = await t.app.request("http://localhost/v1/posts?limit=100", {
      headers: { host: "localhost" },
    });
    const posts = (await list.json()).data as {
      slug: string;
      media: { cover: { url: string; alt: string } | null };
    }[];
    const covered = posts.filter((p) => p.media.cover);
    equal(covered.length > 5, true);
    const one = covered[0];
    const single =
      await (await t.app.request(`http://localhost/v1/posts/${one.slug}`, {
        headers: { host: "localhost" },
      })).json();
    match(
      single.data.media.cover.url,
      /^http:\/\/localhost:8000\/media\/.+\.png$/,
    );
    match(single.data.media.cover.alt, /\w/);
    const image = await t.app.request(single.data.media.cover.url);
    equal(image.status, 200);
    equal(image.headers.get("content-type"), "image/png");
    await image.body?.cancel();
  } finally {
    await t.close();
    await Deno.remove(dir, { recursive: true });
  }
});
