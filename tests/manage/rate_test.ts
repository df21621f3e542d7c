// The Management API rate limit at its edge: 120 requests in any 60 s per credential (a sliding
// window, MAPI-005), the 121st is 429 with Retry-After; every answer carries RateLimit headers.
import assert from "node:assert/strict";
import { refusal, withManageApp } from "./helpers.ts";

Deno.test("rate limit: the 120th request in 60 s answers, the 121st is 429 rate_limited with Retry-After and RateLimit headers (MAPI-017)", () =>
  withManageApp(async (t) => {
    t.clock.advance(15_000);
    for (let i = 1; i <= 120; i++) {
      const response = await t.call("GET", "/site");
      assert.equal(response.status, 200, `request ${i}`);
      assert.equal(
        response.headers.get("ratelimit"),
        `"manage";r=${120 - i};t=${i === 120 ? 60 : 0}`,
      );
      assert.equal(
        response.headers.get("ratelimit-policy"),
        `"manage";q=120;w=60`,
      );
      await response.body?.cancel();
    }
    t.clock.advance(15_000);
    const over = await t.call("GET", "/site");
    assert.equal(over.status, 429);
    assert.equal(over.headers.get("retry-after"), "45");
    assert.equal(over.headers.get("ratelimit"), `"manage";r=0;t=45`);
    const error = await refusal(over);
    assert.equal(error.code, "rate_limited");
    assert.equal(error.retry_after_seconds, 45);
    // Refused requests are not counted, and another credential has its own window.
    const other = await t.credential(["content:read"]);
    assert.equal(
      (await t.call("GET", "/site", { secret: other.secret })).status,
      200,
    );
    // A write is counted too, and refused before anything runs.
    const write = await t.call("POST", "/languages", {
      key: "k",
      body: { code: "fr" },
    });
    assert.equal(write.status, 429);
    const languages = await t.services.db.selectFrom("site_languages")
      .select("code").where("site_id", "=", t.siteId).execute();
    assert.equal(languages.length, 2);
    // The last millisecond before the first requests are 60 s old is still refused.
    t.clock.advance(44_999);
    const last = await t.call("GET", "/site");
    assert.equal(last.status, 429);
    assert.equal(last.headers.get("retry-after"), "1");
    await last.body?.cancel();
    t.clock.advance(1);
    assert.equal((await t.call("GET", "/site")).status, 200);
  }));

Deno.test("rate limit: no 60 s span admits more than 120, even across a minute boundary (fixed windows admitted 240)", () =>
  withManageApp(async (t) => {
    // 10:00:59: 120 answered in the last second of a clock minute.
    t.clock.advance(59_000);
    for (let i = 1; i <= 120; i++) {
      const response = await t.call("GET", "/site");
      assert.equal(response.status, 200, `request ${i}`);
      await response.body?.cancel();
    }
    // 10:01:00 is a new clock minute but the same 60 s span: still refused.
    t.clock.advance(1_000);
    const refused = await t.call("GET", "/site");
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get("retry-after"), "59");
    await refused.body?.cancel();
    t.clock.advance(58_999);
    assert.equal((await t.call("GET", "/site")).status, 429);
    t.clock.advance(1);
    assert.equal((await t.call("GET", "/site")).status, 200);
  }));
