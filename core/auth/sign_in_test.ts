import { deepEqual, equal, match, ok } from "node:assert/strict";
import { ManualClock } from "../clock.ts";
import { openTestDb } from "../../tests/support/db.ts";
import { insertSite } from "../../tests/support/sites.ts";
import { insertPerson } from "../../tests/admin/helpers.ts";
import {
  DEFAULT_SCRYPT,
  hashPassword,
  MAX_CONCURRENT_HASHES,
  passwordHashStats,
  verifyPassword,
} from "./password.ts";
import { sha256Hex } from "./secrets.ts";
import { RateWindow } from "../kv/rate_window.ts";
import {
  DUMMY_PASSWORD_HASH,
  normalizeEmail,
  SIGN_IN_ADDRESS_LIMIT,
  SIGN_IN_LIMIT,
  SIGN_IN_WINDOW_MS,
  signIn,
} from "./sign_in.ts";

const PASSWORD = "a long and right password";

async function setup() {
  const { db, close } = await openTestDb();
  const kv = await Deno.openKv(":memory:");
  const clock = new ManualClock("2026-05-04T08:00:00.000Z");
  const siteId = await insertSite(db, { domain: "s.example.com" });
  const userId = await insertPerson(db, {
    email: "ada@example.com",
    password: PASSWORD,
    displayName: "Ada",
    siteIds: [siteId],
  });
  return {
    ctx: { db, kv, clock },
    siteId,
    userId,
    close: async () => {
      kv.close();
      await close();
    },
  };
}

Deno.test("signIn() creates a session for an active member with the right password", async () => {
  const { ctx, siteId, userId, close } = await setup();
  try {
    const result = await signIn(ctx, {
      siteId,
      email: " ADA@example.com",
      password: PASSWORD,
      clientAddress: "192.0.2.1",
    });
    ok(result.ok);
    deepEqual(result.user, {
      id: userId,
      email: "ada@example.com",
      displayName: "Ada",
    });
    const row = await ctx.db.selectFrom("sessions").selectAll()
      .executeTakeFirstOrThrow();
    equal(row.token_digest, await sha256Hex(result.session.token));
    equal(row.user_id, userId);
  } finally {
    await close();
  }
});

Deno.test("signIn() answers invalid_credentials for each failure, with the reason for the log only", async () => {
  const { ctx, siteId, close } = await setup();
  try {
    const other = await insertSite(ctx.db, { domain: "o.example.com" });
    await insertPerson(ctx.db, {
      email: "gone@example.com",
      password: PASSWORD,
      status: "deactivated",
      siteIds: [siteId],
    });
    await insertPerson(ctx.db, {
      email: "away@example.com",
      password: PASSWORD,
      siteIds: [other],
    });
    const cases = [
      ["ada@example.com", "wrong", "wrong_password"],
      ["nobody@example.com", PASSWORD, "unknown_email"],
      ["gone@example.com", PASSWORD, "deactivated"],
      ["away@example.com", PASSWORD, "no_site_access"],
      // A wrong password never tells whether the account could sign in at all.
      ["gone@example.com", "wrong", "wrong_password"],
    ] as const;
    for (const [email, password, reason] of cases) {
      const result = await signIn(ctx, {
        siteId,
        email,
        password,
        clientAddress: "192.0.2.1",
      });
      deepEqual(result, { ok: false, code: "invalid_credentials", reason });
    }
    equal(
      (await ctx.db.selectFrom("sessions").selectAll().execute()).length,
      0,
    );
  } finally {
    await close();
  }
});

Deno.test("DUMMY_PASSWORD_HASH costs what a real default hash costs and matches no password", async () => {
  const { N, r, p } = DEFAULT_SCRYPT;
  match(
    DUMMY_PASSWORD_HASH,
    new RegExp(
      `^scrypt\\$${N}\\$${r}\\$${p}\\$[A-Za-z0-9_-]{22}\\$[A-Za-z0-9_-]{43}$`,
    ),
  );
  equal(await verifyPassword("", DUMMY_PASSWORD_HASH), false);
  equal(await verifyPassword("password", DUMMY_PASSWORD_HASH), false);
});

Deno.test("signIn() refuses the 11th attempt in a window with rate_limited, before checking the password", async () => {
  const { ctx, siteId, close } = await setup();
  try {
    const attempt = (password: string, clientAddress = "192.0.2.1") =>
      signIn(ctx, {
        siteId,
        email: "ada@example.com",
        password,
        clientAddress,
      });
    for (let i = 0; i < SIGN_IN_LIMIT; i++) {
      equal((await attempt("wrong")).ok, false);
    }
    // 08:00 is a window start, so 14:59.999 later is the window's last millisecond.
    ctx.clock.advance(SIGN_IN_WINDOW_MS - 1);
    deepEqual(await attempt(PASSWORD), {
      ok: false,
      code: "rate_limited",
      retryAfterSeconds: 1,
    });
    equal((await attempt(PASSWORD, "192.0.2.2")).ok, true);
    ctx.clock.advance(1);
    equal((await attempt(PASSWORD)).ok, true);
  } finally {
    await close();
  }
});

Deno.test("normalizeEmail() trims and lowercases", () => {
  equal(normalizeEmail("  Ada@Example.COM\t"), "ada@example.com");
});

Deno.test("signIn() throttles one address across emails: the 30th try answers, the 31st is rate_limited without hashing; the account lockout still holds", async () => {
  const { ctx, siteId, close } = await setup();
  try {
    const attempt = (
      email: string,
      password = "wrong",
      clientAddress = "192.0.2.9",
    ) => signIn(ctx, { siteId, email, password, clientAddress });
    // The first 29 tries are counted straight into the address's window (each real one is
    // a full scrypt); the 30th is a real try.
    const rate = new RateWindow(ctx.kv, { clock: ctx.clock });
    for (let i = 1; i < SIGN_IN_ADDRESS_LIMIT; i++) {
      await rate.hit(
        ["sign_in_address", "192.0.2.9"],
        SIGN_IN_ADDRESS_LIMIT,
        SIGN_IN_WINDOW_MS,
      );
    }
    const last = await attempt("guess-30@example.com");
    equal(!last.ok && last.code, "invalid_credentials", "the 30th try");
    const hashed = passwordHashStats().started;
    for (let i = 0; i < 5; i++) {
      const refused = await attempt(`more-${i}@example.com`);
      equal(!refused.ok && refused.code, "rate_limited");
    }
    // The right password of a real person from that address is refused too.
    equal(!(await attempt("ada@example.com", PASSWORD)).ok, true);
    equal(passwordHashStats().started, hashed, "throttled tries hash nothing");
    // Another address is not throttled; the per-account lockout (10 per email and address) stays.
    for (let i = 1; i < SIGN_IN_LIMIT; i++) {
      await rate.hit(
        ["sign_in", siteId, "ada@example.com", "192.0.2.10"],
        SIGN_IN_LIMIT,
        SIGN_IN_WINDOW_MS,
      );
    }
    equal((await attempt("ada@example.com", "wrong", "192.0.2.10")).ok, false);
    const locked = await attempt("ada@example.com", PASSWORD, "192.0.2.10");
    equal(!locked.ok && locked.code, "rate_limited");
    equal((await attempt("ada@example.com", PASSWORD, "192.0.2.11")).ok, true);
  } finally {
    await close();
  }
});

Deno.test("password hashing runs at most MAX_CONCURRENT_HASHES at once, the rest wait their turn", async () => {
  const cheap = { N: 2 ** 10, r: 8, p: 1 };
  const stored = await hashPassword("pw", cheap);
  const before = passwordHashStats().started;
  const results = await Promise.all(
    Array.from({ length: 8 }, () => verifyPassword("pw", stored)),
  );
  deepEqual(results, Array(8).fill(true));
  equal(passwordHashStats().started - before, 8);
  ok(passwordHashStats().peak <= MAX_CONCURRENT_HASHES);
  equal(MAX_CONCURRENT_HASHES, 2);
});
