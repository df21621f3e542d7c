// GET /health and site resolution by Host (spec 3 part 4.1; inventory PUB-001, PUB-002).
import { deepEqual, equal } from "node:assert/strict";
import { openTestApp } from "../support/app.ts";
import { insertSite } from "../support/sites.ts";

Deno.test("GET /health answers the site slug for its exact domain, any case, any port (PAUX-001)", async () => {
  const t = await openTestApp();
  try {
    await insertSite(t.services.db, {
      domain: "blog.example.com",
      slug: "blog",
    });
    for (
      const host of [
        "blog.example.com",
        "BLOG.Example.com",
        "blog.example.com:8000",
      ]
    ) {
      const res = await t.app.request("/health", { headers: { host } });
      equal(res.status, 200, host);
      deepEqual(await res.json(), { ok: true, site: "blog" });
    }
  } finally {
    await t.close();
  }
});

Deno.test("GET /health refuses an unknown host with 404 unknown_host (PAUX-001)", async () => {
  const t = await openTestApp();
  try {
    await insertSite(t.services.db, { domain: "blog.example.com" });
    for (
      const host of [
        "other.example.com",
        "example.com",
        "www.blog.example.com",
        "bad host",
      ]
    ) {
      const res = await t.app.request("/health", { headers: { host } });
      equal(res.status, 404, host);
      equal((await res.json()).error.code, "unknown_host");
    }
  } finally {
    await t.close();
  }
});

Deno.test("each request logs one line with method, path without query, status and duration", async () => {
  const t = await openTestApp();
  try {
    await insertSite(t.services.db, { domain: "localhost" });
    await t.app.request("/health?token=sv_secret_value", {
      headers: { host: "localhost" },
    });
    const lines = t.logs.filter((l) => l.msg === "request");
    equal(lines.length, 1);
    equal(lines[0].method, "GET");
    equal(lines[0].path, "/health");
    equal(lines[0].status, 200);
    equal(typeof lines[0].ms, "number");
    equal(JSON.stringify(t.logs).includes("sv_secret_value"), false);
  } finally {
    await t.close();
  }
});
