// The Idempotency-Key rules of the management API: the key's shape and how long a key is kept (spec 2, 4.1 and 8).

const DAY_MS = 24 * 60 * 60 * 1000;

/** Retention of publish, unpublish and move keys: 30 days. */
export const IDEMPOTENCY_RETENTION_LONG_MS: number = 30 * DAY_MS;

/** Retention of every other key: 24 hours. */
export const IDEMPOTENCY_RETENTION_MS: number = DAY_MS;

/** Shortest `Idempotency-Key`. */
export const IDEMPOTENCY_KEY_MIN_LENGTH = 1;
/** Longest `Idempotency-Key` (spec 2, 4.3). */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 128;

/** Answers whether `key` is 1 to 128 visible ASCII characters (0x21 to 0x7E, so no spaces). */
export function isValidIdempotencyKey(key: string): boolean {
  return key.length >= IDEMPOTENCY_KEY_MIN_LENGTH &&
    key.length <= IDEMPOTENCY_KEY_MAX_LENGTH && /^[\x21-\x7E]+$/.test(key);
}
