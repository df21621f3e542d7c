// MOD-055 media references checked on save, and /v1 answers expanding them into the item's public fields.
import { deepEqual, equal, ok } from "node:assert/strict";
import { refusal } from "../manage/helpers.ts";
import { type MediaFixture, png, withMediaApp } from "./support.ts";

async function model(t: MediaFixture) {
  const res = await t.call("POST", "/models", {
    secret: t.media,
    key: "model",
    body: {
      definition: {
        model: { name: "Posts", slug: "posts", enableI18n: true },
        fields: [
          { key: "title", label: "Title", type: "text", localized: true },
          {
            key: "cover",
            label: "Cover",
            type: "media",
            config: JSON.stringify({ kinds: ["image"] }),
          },
          {
            key: "gallery",
            label: "Gallery",
            type: "media",
            config: JSON.stringify({ multiple: true }),
          },
          { key: "body", label: "Body", type: "rich_text", localized: true },
        ],
      },
    },
  });
  equal(res.status, 201, await res.clone().text());
  return (await res.json()).model_id as string;
}

function create(
  t: MediaFixture,
  modelId: string,
  fields: Record<string, unknown>,
  slug = "hello",
) {
  return t.call("POST", "/entries", {
    secret: t.media,
    key: crypto.randomUUID(),
    body: { model_id: modelId, locale: "en", slug, fields },
  });
}

async function upload(
  t: MediaFixture,
  bytes: Uint8Array,
  name: string,
  fields: Record<string, string> = {},
) {
  const res = await t.send("POST", "/media", { file: { bytes, name }, fields });
  equal(res.status, 201);
  return await res.json();
}

Deno.test("entry saves check media fields, galleries and rich-text media blocks against this site's library (MOD-055)", () =>
  withMediaApp(async (t) => {
    const modelId = await model(t);
    const image = await upload(t, await png(1), "a.png");
    const doc = await upload(
      t,
      new TextEncoder().encode("%PDF-1.4\n%\xe2\xe3\n"),
      "a.pdf",
    );
    const ghost = crypto.randomUUID();
    const missing = await create(t, modelId, { title: "x", cover: ghost });
    equal(missing.status, 422);
    const body = await refusal(missing);
    equal(body.code, "field_validation_failed");
    deepEqual(
      (body.errors as { path: string; code: string }[]).map((
        e,
      ) => [e.path, e.code]),
      [["cover", "media_not_found"]],
    );
    const kind = await refusal(
      await create(t, modelId, { title: "x", cover: doc.id }),
    );
    deepEqual((kind.errors as { code: string }[]).map((e) => e.code), [
      "media_kind_not_accepted",
    ]);
    const gallery = await refusal(
      await create(t, modelId, { title: "x", gallery: [image.id, ghost] }),
    );
    deepEqual((gallery.errors as { path: string }[]).map((e) => e.path), [
      "gallery",
    ]);
    const block =
      `<figure data-figure="media" data-media="${ghost}" data-kind="image"></figure>`;
    const rich = await refusal(
      await create(t, modelId, { title: "x", body: block }),
    );
    deepEqual(
      (rich.errors as { path: string; code: string }[]).map((
        e,
      ) => [e.path, e.code]),
      [["body", "media_not_found"]],
    );
    const okBlock =
      `<figure data-figure="media" data-media="${image.id}" data-kind="image"></figure>`;
    const saved = await create(t, modelId, {
      title: "x",
      cover: image.id,
      gallery: [image.id, doc.id],
      body: okBlock,
    });
    equal(saved.status, 201, await saved.clone().text());
    // Another site's media id is not in this library.
    const { createInstallation } = await import(
      "../../core/sites/installation.ts"
    );
    const other = await createInstallation(t.services, {
      domain: "other.test",
      slug: "other",
      name: "Other",
      locales: ["en"],
      adminEmail: "admin@other.test",
      credential: { name: "o", scopes: ["content:read", "media:write"] },
    });
    if (!other.ok) throw new Error(other.message);
    const form = new FormData();
    form.append(
      "file",
      new File([await png(9) as Uint8Array<ArrayBuffer>], "b.png"),
    );
    const foreign =
      await (await t.app.request("http://localhost/api/manage/v1/media", {
        method: "POST",
        headers: {
          authorization: `Bearer ${other.management_credential!.secret}`,
          "idempotency-key": "k",
        },
        body: form,
      })).json();
    const cross = await refusal(
      await create(t, modelId, { title: "y", cover: foreign.id }, "other"),
    );
    deepEqual((cross.errors as { code: string }[]).map((e) => e.code), [
      "media_not_found",
    ]);
    // The media item is now in use.
    const remove = await t.call("POST", `/media/${image.id}/remove`, {
      secret: t.media,
      key: "r",
    });
    equal((await refusal(remove)).code, "media_in_use");
  }));

Deno.test("/v1 answers expand media references into URL, kind, dimensions, alt text with fallback and focal point; a language's original is served", () =>
  withMediaApp(async (t) => {
    const modelId = await model(t);
    const image = await upload(t, await png(2, 12, 8), "cover.png", {
      alt_texts: '{"en":"A red door"}',
    });
    await t.call("PUT", `/media/${image.id}`, {
      secret: t.media,
      key: "focal",
      body: { default_focal: { x: 0.3, y: 0.6 } },
    });
    const created = await (await create(t, modelId, {
      title: "Hello",
      cover: image.id,
      gallery: [image.id],
    })).json();
    const de = await t.call("POST", `/entries/${created.id}/locales`, {
      secret: t.media,
      key: "de",
      body: {
        locale: "de",
        slug: "hallo",
        fields: { title: "Hallo", cover: image.id },
      },
    });
    equal(de.status, 201, await de.clone().text());
    const entry =
      await (await t.call("GET", `/entries/${created.id}`, { secret: t.media }))
        .json();
    const published = await t.call("POST", `/entries/${created.id}/publish`, {
      secret: t.media,
      key: "pub",
      body: {
        expected_current_version_id: entry.current_version_id,
        expected_workflow_revision: entry.revision,
      },
    });
    equal(published.status, 200, await published.clone().text());
    const read = async (path: string) => {
      const res = await t.app.request(`http://manage.test${path}`, {
        headers: { host: "manage.test" },
      });
      equal(res.status, 200, await res.clone().text());
      return (await res.json()).data;
    };
    const en = await read("/v1/posts/hello");
    deepEqual(en.media.cover, {
      id: image.id,
      kind: "image",
      url: image.url,
      mime_type: "image/png",
      file_name: "cover.png",
      byte_length: image.byte_length,
      width: 12,
      height: 8,
      aspect_ratio: null,
      alt: "A red door",
      focal: { x: 0.3, y: 0.6 },
      loading: "lazy",
      fetch_priority: "auto",
      placeholder: image.placeholder,
      dominant_color: image.dominant_color,
    });
    // A PNG gets its placeholder facts on upload (issue 46).
    ok(/^[A-Za-z0-9+/]+=*$/.test(image.placeholder));
    ok(/^#[0-9a-f]{6}$/.test(image.dominant_color));
    equal(en.media.gallery.length, 1);
    const deItem = await read("/v1/posts/hallo?locale=de");
    equal(deItem.media.cover.alt, "A red door"); // de has none: falls back to en
    const override =
      await (await t.send("PUT", `/media/${image.id}/originals/de`, {
        file: { bytes: await png(3, 6, 4), name: "de.png" },
        fields: { expected_object_id: "" },
      })).json();
    const deUrl = override.data.find((o: { lang: string }) =>
      o.lang === "de"
    ).url;
    const deAfter = await read("/v1/posts/hallo?locale=de");
    equal(deAfter.media.cover.url, deUrl);
    equal(deAfter.media.cover.width, 6);
    const list = await read("/v1/posts");
    equal(list[0].media.cover.url, image.url);
  }));
