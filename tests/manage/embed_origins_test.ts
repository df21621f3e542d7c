// MOD-056: administrators allow up to 20 exact https origins for rich-text embeds
// (`editorial.allowed_embed_origins`); saves take embeds from those origins only.
import { deepEqual, equal, ok } from "node:assert/strict";
import { SCOPES } from "../../core/access/scopes.ts";
import { insertCredential } from "../../core/credentials/credential_store.ts";
import { openPublicWorld } from "../public/helpers.ts";

const BASE = "http://localhost/api/manage/v1";

Deno.test("allowed embed origins: 20 are accepted, the 21st is refused; an embed saves only from an allowed origin (MOD-056)", async () => {
  const w = await openPublicWorld();
  try {
    const { secret } = await insertCredential(w.services.db, w.clock, {
      siteId: w.siteId,
      creatorId: w.adminId,
      name: "embeds",
      scopes: [...SCOPES],
      models: null,
    });
    let n = 0;
    const call = (method: string, path: string, body: unknown) =>
      w.app.request(`${BASE}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${secret}`,
          "content-type": "application/json",
          "idempotency-key": `embed-${++n}`,
        },
        body: JSON.stringify(body),
      });
    const modelId = await w.modelId("posts");
    const embed = (url: string) =>
      `<figure data-figure="embed" data-provider="video" data-url="${url}" data-title="Talk"></figure>`;
    const save = (url: string, slug: string) =>
      call("POST", "/entries", {
        model_id: modelId,
        locale: "en",
        slug,
        fields: { title: "Embedded", body: embed(url) },
      });

    // Today no origin is allowed: every embed is refused.
    const before = await save("https://video.example/watch?v=1", "embed-0");
    equal(before.status, 422, await before.clone().text());

    const origins = Array.from(
      { length: 21 },
      (_, i) => `https://v${i}.example`,
    );
    origins[0] = "https://video.example";
    const document = (list: string[]) => ({
      version_retention_days: null,
      review_required: false,
      allowed_embed_origins: list,
    });
    const over = await call("PUT", "/settings/editorial", {
      expected_revision: 0,
      document: document(origins),
    });
    equal(over.status, 400);
    equal((await over.json()).error.code, "input_invalid");
    for (
      const bad of [
        "http://video.example",
        "https://video.example/",
        "https://video.example/path",
        "https://VIDEO.example",
      ]
    ) {
      const refused = await call("PUT", "/settings/editorial", {
        expected_revision: 0,
        document: document([bad]),
      });
      equal(refused.status, 400, bad);
      await refused.body?.cancel();
    }
    const twenty = await call("PUT", "/settings/editorial", {
      expected_revision: 0,
      document: document(origins.slice(0, 20)),
    });
    equal(twenty.status, 200, await twenty.clone().text());
    deepEqual(
      (await twenty.json()).document.allowed_embed_origins,
      origins.slice(0, 20),
    );

    const allowed = await save("https://video.example/watch?v=1", "embed-1");
    equal(allowed.status, 201, await allowed.clone().text());
    const unlisted = await save("https://v20.example/watch?v=1", "embed-2");
    equal(unlisted.status, 422);
    ok(JSON.stringify(await unlisted.json()).includes("data-url"));
  } finally {
    await w.close();
  }
});
