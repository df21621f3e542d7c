// The Deno KV stores: idempotency claims, one-time codes, leases and rate windows.

export { openKvStore } from "./open.ts";
export { sha256Hex } from "./digest.ts";
export {
  IDEMPOTENCY_RETENTION_LONG_MS,
  IDEMPOTENCY_RETENTION_MS,
  isValidIdempotencyKey,
} from "./idempotency_key.ts";
export {
  type IdempotentAnswer,
  MAX_ANSWER_BODY_BYTES,
} from "./idempotent_answer.ts";
export {
  type ClaimChanged,
  type ClaimOptions,
  type ClaimResult,
  type IdempotencyClaim,
  type IdempotencyRef,
  IdempotencyStore,
  type IdempotencyStoreOptions,
} from "./idempotency_store.ts";
export {
  type CodeRefusal,
  type ConsumeCodeResult,
  type IssueCodeOptions,
  type IssuedCode,
  OneTimeCodes,
  type OneTimeCodesOptions,
} from "./one_time_codes.ts";
export {
  type Lease,
  LeaseStore,
  type LeaseStoreOptions,
  type ReleaseLeaseResult,
  type TakeLeaseResult,
} from "./lease_store.ts";
export {
  type RateDecision,
  RateWindow,
  type RateWindowOptions,
} from "./rate_window.ts";
