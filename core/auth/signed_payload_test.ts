import { Buffer } from "node:buffer";
import { deepEqual, equal, notEqual } from "node:assert/strict";
import { openTestDb } from "../../tests/support/db.ts";
import { instanceKey, signPayload, verifyPayload } from "./signed_payload.ts";

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
