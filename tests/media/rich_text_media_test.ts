// Library images inside public rich text (issue 46): the public answer carries them under the field's
// key in `media`, expanded like media fields, and only for public fields (MOD-029, MOD-055); the
// renderer draws them with srcset from variants and their dimensions.
import { deepEqual, equal, ok } from "node:assert/strict";
import { richTextHtml } from "../../services/renderer/template/builtin/components/rich_text.tsx";
import { type MediaFixture, png, withMediaApp } from "./support.ts";

async function postsModel(t: MediaFixture) {
  const res = await t.call("POST", "/models", {
    secret: t.media,
    key: "model",
    body: {
      definition: {
        model: { name: "Posts", slug: "posts" },
        fields: [
          { key: "title", label: "Title", type: "text" },
          { key: "body", label: "Body", type: "rich_text" },
          { key: "notes", label: "Notes", type: "rich_text", private: true },
        ],
      },
    },
  });
  equal(res.status, 201, await res.clone().text());
  return (await res.json()).model_id as string;
}

async function publish(t: MediaFixture, id: string) {
  const entry = await (await t.call("GET", `/entries/${id}`, {
    secret: t.media,
  })).json();
  const res = await t.call("POST", `/entries/${id}/publish`, {
    secret: t.media,
    key: `pub-${id}`,
    body: {
      expected_current_version_id: entry.current_version_id,
      expected_workflow_revision: entry.revision,
    },
  });
  equal(res.status, 200, await res.clone().text());
}

Deno.test("/v1 carries the library images of a public rich-text field under media.<field>, never those of a private one (MOD-029, MOD-055)", () =>
  withMediaApp(async (t) => {
    const modelId = await postsModel(t);
    const upload = async (seed: number, name: string) =>
      await (await t.send("POST", "/media", {
        file: { bytes: await png(seed, 800, 400), name },
        fields: { alt_texts: '{"en":"A harbour"}' },
      })).json();
    const shown = await upload(1, "harbour.png");
    const gallery = await upload(2, "boats.png");
    const secret = await upload(3, "plan.png");
    const body =
      `<p>Intro</p><figure data-figure="media" data-media="${shown.id}" data-kind="image"><figcaption>The harbour</figcaption></figure>` +
      `<figure data-figure="gallery"><img data-media="${gallery.id}" alt="Boats"><img data-media="${shown.id}" alt="Again"></figure>`;
    const notes =
      `<figure data-figure="media" data-media="${secret.id}" data-kind="image"></figure>`;
    const created = await t.call("POST", "/entries", {
      secret: t.media,
      key: "create",
      body: {
        model_id: modelId,
        locale: "en",
        slug: "hello",
        fields: { title: "Hello", body, notes },
      },
    });
    equal(created.status, 201, await created.clone().text());
    await publish(t, (await created.json()).id);
    const res = await t.app.request("http://manage.test/v1/posts/hello", {
      headers: { host: "manage.test" },
    });
    equal(res.status, 200, await res.clone().text());
    const item = (await res.json()).data;
    equal(item.fields.notes, undefined);
    deepEqual(Object.keys(item.media), ["body"]);
    deepEqual(item.media.body.map((m: { id: string }) => m.id), [
      shown.id,
      gallery.id,
    ]);
    const first = item.media.body[0];
    deepEqual(
      [first.url, first.width, first.height, first.alt, first.kind],
      [shown.url, 800, 400, "A harbour", "image"],
    );
    ok(
      !JSON.stringify(item).includes(secret.id),
      "a private field's media never show",
    );

    // The renderer draws them: srcset from the library's variants, width and height kept.
    const html = richTextHtml(item.fields.body, { media: item.media.body });
    const img = new RegExp(
      `<img src="${
        shown.url.replaceAll(".", "\\.")
      }\\?width=640" srcset="[^"]*\\?width=320 320w, [^"]*\\?width=640 640w" sizes="[^"]+" width="800" height="400" alt="A harbour" loading="lazy" decoding="async">`,
    );
    ok(img.test(html), html);
    ok(html.includes("<figcaption>The harbour</figcaption>"));
    ok(html.includes('alt="Boats"'));
    ok(
      !html.includes("<img data-media"),
      "gallery images are drawn, not left as references",
    );
    // Each srcset address answers a real variant of that width.
    const variant = await t.app.request(`${shown.url}?width=320`, {
      headers: { accept: "image/webp" },
    });
    equal(variant.status, 200);
    equal(variant.headers.get("content-type"), "image/webp");
    // With a transform host, the host draws them instead.
    const hosted = richTextHtml(item.fields.body, {
      media: item.media.body,
      origins: ["https://img.example.com"],
    });
    ok(hosted.includes('src="https://img.example.com/image?url='), hosted);
    // An image the answer does not carry stays a reference with its caption.
    equal(richTextHtml(body, { media: [] }), body);
  }));
