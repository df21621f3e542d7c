// The Management API rate limit at its edge: 120 requests per minute per credential, the 121st is 429 with Retry-After.
import assert from "node:assert/strict";
import { refusal, withManageApp } from "./helpers.ts";

Deno.test("rate limit: the 120th request in a minute answers, the 121st is 429 rate_limited with Retry-After", () =>
  withManageApp(async (t) => {
    // 10:00:00.000 is the start of a window; 15 s into it, 45 s are left.
    t.clock.advance(15_000);
    for (let i = 1; i <= 120; i++) {
      const response = await t.call("GET", "/site");
      assert.equal(response.status, 200, `request ${i}`);
      await response.body?.cancel();
    }
    const over = await t.call("GET", "/site");
    assert.equal(over.status, 429);
    assert.equal(over.headers.get("retry-after"), "45");
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
    // The last millisecond of the window is still refused; the next window answers.
    t.clock.advance(44_999);
    const last = await t.call("GET", "/site");
    assert.equal(last.status, 429);
    assert.equal(last.headers.get("retry-after"), "1");
    await last.body?.cancel();
    t.clock.advance(1);
    assert.equal((await t.call("GET", "/site")).status, 200);
  }));
