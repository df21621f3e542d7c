import { deepEqual, equal, match, notEqual, ok } from "node:assert/strict";
import { ManualClock } from "../clock.ts";
import { openTestDb } from "../../tests/support/db.ts";
import { insertSite } from "../../tests/support/sites.ts";
import { addMember, insertPerson } from "../../tests/admin/helpers.ts";
import { sha256Hex } from "./secrets.ts";
import {
  createSession,
  deleteExpiredSessions,
  deleteSession,
  deleteSessionByToken,
  findSessionUser,
  SESSION_LIFETIME_MS,
} from "./session_store.ts";

async function setup() {
  const { db, close } = await openTestDb();
  const clock = new ManualClock("2026-05-04T08:00:00.000Z");
  const siteId = await insertSite(db, { domain: "s.example.com" });
  const userId = await insertPerson(db, {
    email: "ada@example.com",
    password: "irrelevant here",
    displayName: "Ada",
    siteIds: [siteId],
  });
  return { db, clock, siteId, userId, close };
}

Deno.test("createSession() stores only the token's digest and an expiry 12 hours on", async () => {
  const { db, clock, userId, close } = await setup();
  try {
    const created = await createSession({ db, clock }, userId);
    match(created.token, /^[A-Za-z0-9_-]{43}$/);
    equal(created.expiresAt.toISOString(), "2026-05-04T20:00:00.000Z");
    const rows = await db.selectFrom("sessions").selectAll().execute();
    equal(rows.length, 1);
    equal(rows[0].id, created.id);
    equal(rows[0].token_digest, await sha256Hex(created.token));
    equal(JSON.stringify(rows).includes(created.token), false);
    const again = await createSession({ db, clock }, userId);
    notEqual(again.token, created.token);
  } finally {
    await close();
  }
});

Deno.test("findSessionUser() answers the person until 1 ms before expiry, then null", async () => {
  const { db, clock, siteId, userId, close } = await setup();
  try {
    const { id, token } = await createSession({ db, clock }, userId);
    const expected = {
      id: userId,
      email: "ada@example.com",
      displayName: "Ada",
      sessionId: id,
    };
    deepEqual(
      await findSessionUser({ db, clock }, { token, siteId }),
      expected,
    );
    clock.advance(SESSION_LIFETIME_MS - 1);
    deepEqual(
      await findSessionUser({ db, clock }, { token, siteId }),
      expected,
    );
    clock.advance(1);
    equal(await findSessionUser({ db, clock }, { token, siteId }), null);
  } finally {
    await close();
  }
});

Deno.test("findSessionUser() answers null for a deactivated person, another site, or a bad token", async () => {
  const { db, clock, siteId, userId, close } = await setup();
  try {
    const { token } = await createSession({ db, clock }, userId);
    const other = await insertSite(db, { domain: "o.example.com" });
    equal(await findSessionUser({ db, clock }, { token, siteId: other }), null);
    await addMember(db, { siteId: other, userId });
    ok(await findSessionUser({ db, clock }, { token, siteId: other }));
    for (const bad of ["", "short", token + "x", token.slice(0, 42) + "!"]) {
      equal(await findSessionUser({ db, clock }, { token: bad, siteId }), null);
    }
    await db.updateTable("users").set({ status: "deactivated" }).execute();
    equal(await findSessionUser({ db, clock }, { token, siteId }), null);
  } finally {
    await close();
  }
});

Deno.test("deleteSession() and deleteSessionByToken() end one session and leave others", async () => {
  const { db, clock, siteId, userId, close } = await setup();
  try {
    const a = await createSession({ db, clock }, userId);
    const b = await createSession({ db, clock }, userId);
    const c = await createSession({ db, clock }, userId);
    await deleteSession(db, a.id);
    await deleteSessionByToken(db, b.token);
    await deleteSessionByToken(db, "not a token");
    await deleteSession(db, crypto.randomUUID());
    equal(
      await findSessionUser({ db, clock }, { token: a.token, siteId }),
      null,
    );
    equal(
      await findSessionUser({ db, clock }, { token: b.token, siteId }),
      null,
    );
    ok(await findSessionUser({ db, clock }, { token: c.token, siteId }));
  } finally {
    await close();
  }
});

Deno.test("deleteExpiredSessions() deletes sessions at or past expiry only", async () => {
  const { db, clock, userId, close } = await setup();
  try {
    await createSession({ db, clock }, userId);
    clock.advance(1);
    const later = await createSession({ db, clock }, userId);
    clock.advance(SESSION_LIFETIME_MS - 1);
    equal(await deleteExpiredSessions({ db, clock }), 1);
    const left = await db.selectFrom("sessions").select("id").execute();
    deepEqual(left.map((r) => r.id), [later.id]);
    equal(await deleteExpiredSessions({ db, clock }), 0);
  } finally {
    await close();
  }
});
