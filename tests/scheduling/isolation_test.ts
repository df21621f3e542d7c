// Client rule 5 of spec 1 part 7 in the reference scheduling plugin: every row and query is
// scoped by installation, and no page or error body carries a token or launch code (PAPI-043).
import { equal, ok } from "node:assert/strict";
import { withSchedulingWorld } from "./world.ts";

// The world's clock starts at 2026-11-23T10:00Z; 12:00 in Berlin is 11:00Z.
const BERLIN_NOON = {
  local: "2026-11-23T12:00",
  timezone: "Europe/Berlin",
  fold: "later",
};

Deno.test("a second installation's schedule is never read through the first one's session, and no page carries svp_ or svl_ (PAPI-043)", () =>
  withSchedulingWorld(async (w) => {
    const { instances } = await w.entry({ en: { title: "Mine" } });
    const browser = await w.launch(instances.en);
    const made = await browser.post(
      `/installations/${w.installationId}/schedules`,
      { kind: "publish", locale: "", ...BERLIN_NOON },
    );
    equal(made.status, 303);
    const db = w.scheduler.db;
    const mine = await db.selectFrom("schedules").selectAll()
      .executeTakeFirstOrThrow();
    const own = await db.selectFrom("installations").selectAll()
      .executeTakeFirstOrThrow();
    // Another installation in the same plugin database, with a schedule on the same item.
    const otherId = "inst-other";
    await db.insertInto("installations").values({
      ...own,
      id: otherId,
      site_id: crypto.randomUUID(),
    }).execute();
    const theirs = crypto.randomUUID();
    await db.insertInto("schedules").values({
      ...mine,
      id: theirs,
      installation_id: otherId,
      title: "Theirs",
    }).execute();

    const pages: string[] = [];
    const read = async (path: string) => {
      const res = await browser.get(path);
      const text = await res.text();
      pages.push(text);
      return { status: res.status, text };
    };
    const ownPage = await read(
      `/installations/${w.installationId}/schedules/${mine.id}`,
    );
    equal(ownPage.status, 200);
    // The other installation's schedule id, under this installation: not found.
    const crossed = await read(
      `/installations/${w.installationId}/schedules/${theirs}`,
    );
    equal(crossed.status, 404);
    // This session under the other installation: no session there at all.
    const foreign = await read(`/installations/${otherId}/schedules/${theirs}`);
    equal(foreign.status, 401);
    const listing = await read(`/installations/${w.installationId}`);
    equal(listing.status, 200);
    ok(!listing.text.includes("Theirs"), "the other installation's schedule");
    const calendar = await w.manage("calendar");
    const month = await calendar.get(
      `/installations/${w.installationId}/calendar/2026-11-23`,
    );
    const monthText = await month.text();
    pages.push(monthText);
    equal(month.status, 200);
    ok(monthText.includes("Mine"), "the day lists its own schedule");
    ok(!monthText.includes("Theirs"), "and only its own");

    for (const text of pages) {
      ok(!/svp_|svl_/.test(text), "no token or launch code in a page");
    }
    ok(!/svp_/.test(own.token_sealed), "the token is stored sealed");
  }));
