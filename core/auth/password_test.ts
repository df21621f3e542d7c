import { equal, match, notEqual } from "node:assert/strict";
import { hashPassword, verifyPassword } from "./password.ts";

const FAST = { N: 2 ** 10, r: 8, p: 1 };

Deno.test("hashPassword() stores scrypt parameters and a salt, never the password", async () => {
  const stored = await hashPassword("correct horse battery", FAST);
  match(stored, /^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  equal(stored.includes("correct"), false);
  notEqual(await hashPassword("correct horse battery", FAST), stored);
});

Deno.test("verifyPassword() accepts the password and refuses any other", async () => {
  const stored = await hashPassword("correct horse battery", FAST);
  equal(await verifyPassword("correct horse battery", stored), true);
  equal(await verifyPassword("correct horse batterz", stored), false);
  equal(await verifyPassword("", stored), false);
  equal(await verifyPassword("x", "not-a-hash"), false);
});

Deno.test("hashPassword() default cost is memory-hard scrypt N=2^17", async () => {
  const stored = await hashPassword("a long enough password");
  match(stored, /^scrypt\$131072\$8\$1\$/);
  equal(await verifyPassword("a long enough password", stored), true);
});
