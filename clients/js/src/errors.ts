// The client's errors: a refusal of the API with its code, and a failure to reach it at all.
// This module is browser compatible.
import type { ErrorCode } from "./api.gen.ts";

/** The API answered with a refusal: `status` and the body's `error.code` (e.g. `not_found`). */
export class StaveError extends Error {
  override name = "StaveError";
  /** The HTTP status of the answer. */
  readonly status: number;
  /**
   * The refusal's code from the answer's body: one of {@link ErrorCode}, or `http_<status>` when
   * the body carried none (a proxy's answer, for one).
   */
  readonly code: ErrorCode | `http_${number}`;
  /** What the refusal adds besides code and message (`problems`, `max`, `reset_reason`). */
  readonly details: Record<string, unknown>;
  /** Seconds to wait before trying again, from `Retry-After` (429, 503), else null. */
  readonly retryAfter: number | null;

  constructor(
    status: number,
    body: unknown,
    options: { path: string; retryAfter?: string | null },
  ) {
    const error = (body as { error?: Record<string, unknown> } | null)?.error;
    const code = typeof error?.code === "string"
      ? error.code as ErrorCode
      : `http_${status}` as const;
    const message = typeof error?.message === "string"
      ? error.message
      : `Stave answered ${status}`;
    super(`${message}: ${code} (${status} on ${options.path})`);
    this.status = status;
    this.code = code;
    const { code: _c, message: _m, ...details } = error ?? {};
    this.details = details;
    const seconds = Number(options.retryAfter ?? "");
    this.retryAfter = options.retryAfter && Number.isFinite(seconds)
      ? seconds
      : null;
  }
}

/** The API could not be reached (network failure, DNS, timeout, abort): nothing was answered. */
export class StaveNetworkError extends Error {
  override name = "StaveNetworkError";
  constructor(path: string, cause: unknown) {
    super(
      `Cannot reach Stave for ${path}: ${
        (cause as Error)?.message ?? String(cause)
      }`,
      { cause },
    );
  }
}
