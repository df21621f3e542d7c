import { deepEqual, equal, match, notEqual } from "node:assert/strict";
import {
  costOfNewHashes,
  DEFAULT_SCRYPT,
  hashPassword,
  setTestHashCost,
  verifyPassword,
} from "./password.ts";
import { filesUnder } from "../db/pglite_snapshot.ts";

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
  deepEqual(DEFAULT_SCRYPT, { N: 2 ** 17, r: 8, p: 1 });
  // Test support lowers the cost of new hashes for the rest of the suite; the service never does.
  const lowered = costOfNewHashes();
  setTestHashCost(DEFAULT_SCRYPT);
  try {
    const stored = await hashPassword("a long enough password");
    match(stored, /^scrypt\$131072\$8\$1\$/);
    equal(await verifyPassword("a long enough password", stored), true);
  } finally {
    setTestHashCost(lowered);
  }
});

Deno.test("only test support changes the cost of new hashes", async () => {
  const root = new URL("../../", import.meta.url);
  const callers: string[] = [];
  const sources = [new URL("main.ts", root)];
  for (const dir of ["core/", "routes/", "cli/", "plugins/", "services/"]) {
    sources.push(...await filesUnder(new URL(dir, root)));
  }
  for (const file of sources) {
    const path = file.pathname.slice(root.pathname.length);
    if (
      /\.tsx?$/.test(path) && !/_test\.tsx?$/.test(path) &&
      (await Deno.readTextFile(file)).includes("setTestHashCost(")
    ) callers.push(path);
  }
  // Its own definition is the one mention outside the tests.
  deepEqual(callers, ["core/auth/password.ts"]);
});
