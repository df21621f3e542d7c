import { Buffer } from "node:buffer";
import { deepEqual, equal, notEqual } from "node:assert/strict";
import { openTestDb } from "../../tests/support/db.ts";
import { createHmac } from "node:crypto";
import fc from "fast-check";
import {
  instanceKey,
  mac,
  signPayload,
  verifyPayload,
} from "./signed_payload.ts";

Deno.test("signPayload() round-trips through verifyPayload(); a changed byte or another key is refused", async () => {
  const { db, close } = await openTestDb();
  try {
    const key = await instanceKey(db, "test_key");
    const other = await instanceKey(db, "other_key");
    notEqual(
      Buffer.from(key).toString("hex"),
      Buffer.from(other).toString("hex"),
    );
    const text = signPayload(key, { a: 1, b: ["x"] });
    deepEqual(verifyPayload(key, text), { a: 1, b: ["x"] });
    equal(verifyPayload(other, text), null);
    const [body, mac] = text.split(".");
    const flipped = body.slice(0, -1) + (body.at(-1) === "A" ? "B" : "A");
    equal(verifyPayload(key, `${flipped}.${mac}`), null);
    equal(verifyPayload(key, "not a token"), null);
    equal(verifyPayload(key, `${body}.${mac}x`), null);
  } finally {
    await close();
  }
});

Deno.test("instanceKey() is created once and read back the same by a second handle", async () => {
  const { db, close } = await openTestDb();
  try {
    const first = await instanceKey(db, "shared");
    const rows = await db.selectFrom("instance_keys").selectAll().where(
      "name",
      "=",
      "shared",
    ).execute();
    equal(rows.length, 1);
    equal(new TextDecoder().decode(first), rows[0].secret);
  } finally {
    await close();
  }
});

Deno.test("mac() answers the bytes of node:crypto's HMAC-SHA256 for keys shorter and longer than a block", () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 0, maxLength: 130 }),
      fc.string({ maxLength: 300 }),
      (key, body) => {
        const expected = createHmac("sha256", key).update(body).digest("hex");
        equal(mac(key, body).toString("hex"), expected);
        // The pads kept for the key give the same answer again.
        equal(mac(key, body).toString("hex"), expected);
      },
    ),
    { numRuns: 300 },
  );
});
