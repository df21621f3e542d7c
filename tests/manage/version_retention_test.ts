// `editorial.version_retention_days` takes effect through the daily maintenance: old versions that
// nothing names are deleted; current, published and pinned ones stay (issue 10 point 13).
import { deepEqual, equal } from "node:assert/strict";
import { SCOPES } from "../../core/access/scopes.ts";
import { insertCredential } from "../../core/credentials/credential_store.ts";
import { runDailyMaintenance } from "../../core/maintenance.ts";
import { openPublicWorld } from "../public/helpers.ts";

const BASE = "http://localhost/api/manage/v1";
const DAY = 24 * 60 * 60 * 1000;
const REQUIRED = { published_on: "2026-11-01", category: "news" };

Deno.test("version_retention_days: the daily maintenance deletes versions older than the setting unless current, published or pinned; null keeps all", async () => {
  const w = await openPublicWorld();
  try {
    const { secret } = await insertCredential(w.services.db, w.clock, {
      siteId: w.siteId,
      creatorId: w.adminId,
      name: "retention",
      scopes: [...SCOPES],
      models: null,
    });
    let n = 0;
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await w.app.request(`${BASE}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${secret}`,
          "content-type": "application/json",
          "idempotency-key": `retention-${++n}`,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = await r.json();
      equal(r.status < 300, true, JSON.stringify(json));
      return json;
    };
    const modelId = await w.modelId("posts");
    const v1 = await call("POST", "/entries", {
      model_id: modelId,
      locale: "en",
      slug: "kept-history",
      fields: { ...REQUIRED, title: "One" },
    });
    const v2 = await call("PUT", `/entries/${v1.id}`, {
      locale: "en",
      expected_current_version_id: v1.locales.en.current_version_id,
      fields: { ...REQUIRED, title: "Two" },
    });
    await call("POST", `/entries/${v1.id}/publish`, {
      locale: "en",
      expected_current_version_id: v2.locales.en.current_version_id,
      expected_workflow_revision: v2.revision,
    });
    const v3 = await call("PUT", `/entries/${v1.id}`, {
      locale: "en",
      expected_current_version_id: v2.locales.en.current_version_id,
      fields: { ...REQUIRED, title: "Three" },
    });
    w.clock.advance(40 * DAY);
    const v4 = await call("PUT", `/entries/${v1.id}`, {
      locale: "en",
      expected_current_version_id: v3.locales.en.current_version_id,
      fields: { ...REQUIRED, title: "Four" },
    });
    const numbers = async () =>
      (await call("GET", `/entries/${v1.id}/versions`)).data.map((
        v: { number: number },
      ) => v.number).sort();
    deepEqual(await numbers(), [1, 2, 3, 4]);

    // Null (the default) keeps every version.
    equal((await runDailyMaintenance(w.services)).versions, 0);
    deepEqual(await numbers(), [1, 2, 3, 4]);

    const editorial = await call("GET", "/settings/editorial");
    await call("PUT", "/settings/editorial", {
      expected_revision: editorial.revision,
      document: { ...editorial.document, version_retention_days: 30 },
    });
    const done = await runDailyMaintenance(w.services);
    equal(done.versions, 2, "versions 1 and 3 are 40 days old and unnamed");
    deepEqual(await numbers(), [2, 4], "2 is published, 4 is current");
    equal(v4.locales.en.published_version_id, v2.locales.en.current_version_id);
  } finally {
    await w.close();
  }
});
