import {
  deepEqual,
  equal,
  match,
  notEqual,
  ok,
  rejects,
} from "node:assert/strict";
import { ManualClock } from "../clock.ts";
import { sha256Hex } from "./digest.ts";
import { OneTimeCodes } from "./one_time_codes.ts";
import { openKvStore } from "./open.ts";

const LAUNCH_TTL = 60_000;

async function setup(options: { random?: (bytes: Uint8Array) => void } = {}) {
  const kv = await openKvStore(null);
  const clock = new ManualClock("2026-03-01T12:00:00.000Z");
  return { kv, clock, codes: new OneTimeCodes(kv, { clock, ...options }) };
}

const payload = {
  installationId: "inst-1",
  siteId: "site-1",
  userId: "user-1",
};

Deno.test("OneTimeCodes.issue() answers prefix + 43 base64url characters and stores only the digest", async () => {
  const { kv, clock, codes } = await setup();
  try {
    const issued = await codes.issue("launch", {
      prefix: "svl_",
      ttlMs: LAUNCH_TTL,
      payload,
    });
    match(issued.code, /^svl_[A-Za-z0-9_-]{43}$/);
    deepEqual(issued.expiresAt, new Date(clock.now().getTime() + LAUNCH_TTL));
    notEqual(
      issued.code,
      (await codes.issue("launch", {
        prefix: "svl_",
        ttlMs: LAUNCH_TTL,
        payload,
      })).code,
    );
    const stored = [];
    for await (const entry of kv.list({ prefix: [] })) stored.push(entry);
    equal(stored.length, 2);
    for (const entry of stored) match(String(entry.key[1]), /^[0-9a-f]{64}$/);
    ok(stored.map((e) => e.key[1]).includes(await sha256Hex(issued.code)));
    const everything = JSON.stringify(stored.map((e) => [e.key, e.value]));
    equal(everything.includes(issued.code.slice(4)), false);
  } finally {
    kv.close();
  }
});

Deno.test("OneTimeCodes.issue() encodes the injected random bytes", async () => {
  const { kv, codes } = await setup({ random: (bytes) => bytes.fill(0xff) });
  try {
    const issued = await codes.issue("activate", {
      prefix: "act_",
      ttlMs: 1000,
      payload: null,
    });
    equal(issued.code, "act_" + "_".repeat(42) + "8");
    await rejects(
      codes.issue("activate", { prefix: "act_", ttlMs: 1000, payload: null }),
      /random source repeated a code/,
    );
  } finally {
    kv.close();
  }
});

Deno.test("OneTimeCodes.consume() succeeds once with the payload, then answers code_used", async () => {
  const { kv, clock, codes } = await setup();
  try {
    const issuedAt = clock.now();
    const { code, expiresAt } = await codes.issue("launch", {
      prefix: "svl_",
      ttlMs: LAUNCH_TTL,
      payload,
    });
    clock.advance(1000);
    deepEqual(await codes.consume(code, "launch"), {
      ok: true,
      payload,
      issuedAt,
      expiresAt,
    });
    deepEqual(await codes.consume(code, "launch"), {
      ok: false,
      code: "code_used",
    });
  } finally {
    kv.close();
  }
});

Deno.test("OneTimeCodes.consume() works at expiry minus 1 ms and refuses at exactly the expiry", async () => {
  const { kv, clock, codes } = await setup();
  try {
    const first = await codes.issue("launch", {
      prefix: "svl_",
      ttlMs: LAUNCH_TTL,
      payload,
    });
    const second = await codes.issue("launch", {
      prefix: "svl_",
      ttlMs: LAUNCH_TTL,
      payload,
    });
    clock.advance(LAUNCH_TTL - 1);
    equal((await codes.consume(first.code, "launch")).ok, true);
    clock.advance(1);
    deepEqual(await codes.consume(second.code, "launch"), {
      ok: false,
      code: "code_expired",
    });
  } finally {
    kv.close();
  }
});

Deno.test("OneTimeCodes.consume() refuses a wrong purpose without burning the code", async () => {
  const { kv, codes } = await setup();
  try {
    const { code } = await codes.issue("launch:inst-1", {
      prefix: "svl_",
      ttlMs: LAUNCH_TTL,
      payload,
    });
    deepEqual(await codes.consume(code, "launch:inst-2"), {
      ok: false,
      code: "code_wrong_purpose",
    });
    equal((await codes.consume(code, "launch:inst-1")).ok, true);
    deepEqual(await codes.consume(code, "launch:inst-2"), {
      ok: false,
      code: "code_wrong_purpose",
    });
  } finally {
    kv.close();
  }
});

Deno.test("OneTimeCodes.consume() answers code_unknown for a code never issued", async () => {
  const { kv, codes } = await setup();
  try {
    const { code } = await codes.issue("launch", {
      prefix: "svl_",
      ttlMs: LAUNCH_TTL,
      payload,
    });
    deepEqual(
      await codes.consume(
        code.slice(0, -1) + (code.endsWith("A") ? "B" : "A"),
        "launch",
      ),
      {
        ok: false,
        code: "code_unknown",
      },
    );
    deepEqual(await codes.consume("", "launch"), {
      ok: false,
      code: "code_unknown",
    });
  } finally {
    kv.close();
  }
});

Deno.test("OneTimeCodes.consume() keeps answering code_used after the expiry", async () => {
  const { kv, clock, codes } = await setup();
  try {
    const { code } = await codes.issue("activate", {
      prefix: "",
      ttlMs: 15 * 60_000,
      payload: null,
    });
    equal((await codes.consume(code, "activate")).ok, true);
    clock.advance(15 * 60_000);
    deepEqual(await codes.consume(code, "activate"), {
      ok: false,
      code: "code_used",
    });
  } finally {
    kv.close();
  }
});

Deno.test("OneTimeCodes.consume() lets exactly one of concurrent consumers win", async () => {
  const { kv, codes } = await setup();
  try {
    const { code } = await codes.issue("launch", {
      prefix: "svl_",
      ttlMs: LAUNCH_TTL,
      payload,
    });
    const results = await Promise.all(
      Array.from({ length: 10 }, () => codes.consume(code, "launch")),
    );
    equal(results.filter((r) => r.ok).length, 1);
    for (const r of results) if (!r.ok) equal(r.code, "code_used");
  } finally {
    kv.close();
  }
});

Deno.test("OneTimeCodes.issue() throws for a ttl that is not a positive integer", async () => {
  const { kv, codes } = await setup();
  try {
    await rejects(
      codes.issue("launch", { prefix: "svl_", ttlMs: 0, payload }),
      RangeError,
    );
  } finally {
    kv.close();
  }
});
