import { equal } from "node:assert/strict";
import {
  IDEMPOTENCY_RETENTION_LONG_MS,
  IDEMPOTENCY_RETENTION_MS,
  isValidIdempotencyKey,
} from "./idempotency_key.ts";

Deno.test("isValidIdempotencyKey() accepts 1 to 128 visible ASCII characters", () => {
  equal(isValidIdempotencyKey("a"), true);
  equal(isValidIdempotencyKey("x".repeat(128)), true);
  equal(isValidIdempotencyKey("!~"), true); // 0x21 and 0x7E, the ends of the range
  equal(isValidIdempotencyKey("sched:inst-1:sch-2:r3"), true);
});

Deno.test("isValidIdempotencyKey() refuses empty, 129 characters, spaces, controls and non-ASCII", () => {
  equal(isValidIdempotencyKey(""), false);
  equal(isValidIdempotencyKey("x".repeat(129)), false);
  equal(isValidIdempotencyKey("a b"), false);
  equal(isValidIdempotencyKey("a\tb"), false);
  equal(isValidIdempotencyKey("a\nb"), false);
  equal(isValidIdempotencyKey("a\x7Fb"), false);
  equal(isValidIdempotencyKey("clé"), false);
});

Deno.test("IDEMPOTENCY_RETENTION_* are 30 days and 24 hours", () => {
  equal(IDEMPOTENCY_RETENTION_LONG_MS, 30 * 24 * 3600 * 1000);
  equal(IDEMPOTENCY_RETENTION_MS, 24 * 3600 * 1000);
});
