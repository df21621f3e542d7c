// The Management API's refusal codes with their statuses, and the one error body (spec 2 part 7).
import { z } from "zod";

/** Every refusal code a Management API route may answer, with its HTTP status. */
export const ERROR_STATUS = {
  invalid_request: 400,
  input_invalid: 400,
  unauthorized: 401,
  missing_permission: 403,
  creator_unauthorized: 403,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_in_progress: 409,
  idempotency_key_reused: 409,
  locale_exists: 409,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal_error: 500,
} as const;

/** One refusal code. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** Codes every route may answer. */
export const COMMON_ERRORS: readonly ErrorCode[] = [
  "invalid_request",
  "unauthorized",
  "missing_permission",
  "creator_unauthorized",
  "rate_limited",
];

/** Codes every route taking an `Idempotency-Key` may answer besides the common ones. */
export const KEY_ERRORS: readonly ErrorCode[] = [
  "idempotency_in_progress",
  "idempotency_key_reused",
];

/** The one error body: `{ error: { code, message, ...details } }`. */
export const errorBody = z.object({
  error: z.looseObject({
    code: z.string().describe("The refusal's name, e.g. missing_permission"),
    message: z.string().describe("A sentence for people; never parse it"),
  }),
}).describe(
  "Every refusal. Details beside code and message depend on the code (e.g. issues, missing, current_revision)",
);
