// This module is browser compatible.
// The client classification rules of spec 1 part 7: what a plugin does with each answer of the service.
import { OUTCOMES } from "./outcomes.gen.ts";

/** The outcome carried by an answer: `{ code, message, retry }`. */
export interface Outcome {
  code: string;
  message: string;
  retry: boolean;
}

/** Why an answer is terminal although it carries no usable outcome code. */
export type TerminalReason =
  | "outcome"
  | "malformed_outcome"
  | "unknown_code"
  | "retry_flag_mismatch"
  | "status_mismatch"
  | "unexpected_status"
  | "redirect"
  | "body_invalid";

/** What to do with one answer. */
export type Classification =
  | {
    kind: "success";
    status: number;
    /** The parsed JSON body (`null` for an empty one). */
    body: unknown;
    outcome: Outcome | null;
  }
  | {
    kind: "retry";
    status: number;
    /** The outcome code, or null for a bare fallback status or a network fault. */
    code: string | null;
    /** A valid bounded `Retry-After` in ms; null means "back off with jitter". */
    retryAfterMs: number | null;
  }
  | {
    kind: "terminal";
    status: number;
    /** The outcome code when the answer carried a valid one. */
    code: string | null;
    reason: TerminalReason;
    message: string;
    body: unknown;
  };

/** Statuses retried when the answer carries no outcome at all. */
export const FALLBACK_RETRY_STATUSES: readonly number[] = [
  429,
  500,
  502,
  503,
  504,
];

/** The answer as read from the wire. */
export interface RawAnswer {
  status: number;
  headers: Headers;
  /** The body text (empty string for none). */
  text: string;
}

/** Options of classifyAnswer(). */
export interface ClassifyOptions {
  /** The clock, for a `Retry-After` HTTP date. */
  now: number;
  /** The largest `Retry-After` honoured (`MAX_RETRY_AFTER_MS`, default 300000). */
  maxRetryAfterMs?: number;
  /** The outcomes table (default: the SDK's vendored copy). */
  outcomes?: Readonly<Record<string, { status: number; retry: boolean }>>;
}

/**
 * Classifies one answer. A present outcome must be well formed, carry a known code, the
 * table's retry flag and the table's status; otherwise the answer is terminal even on a
 * retryable status. Without an outcome only 429, 500, 502, 503 and 504 are retried.
 * A 3xx is terminal: redirects are never followed.
 */
export function classifyAnswer(
  answer: RawAnswer,
  options: ClassifyOptions,
): Classification {
  const table = options.outcomes ?? OUTCOMES;
  const { status } = answer;
  let body: unknown = null;
  let parsed = true;
  if (answer.text.trim() !== "") {
    try {
      body = JSON.parse(answer.text);
    } catch {
      parsed = false;
    }
  }
  const terminal = (
    reason: TerminalReason,
    message: string,
    code: string | null = null,
  ): Classification => ({
    kind: "terminal",
    status,
    code,
    reason,
    message,
    body,
  });

  if (status >= 300 && status < 400) {
    return terminal("redirect", `The service answered a redirect (${status})`);
  }
  const hasOutcome = parsed && isRecord(body) && Object.hasOwn(body, "outcome");
  if (!hasOutcome) {
    if (status >= 200 && status < 300) {
      if (!parsed) return terminal("body_invalid", "The answer is not JSON");
      return { kind: "success", status, body, outcome: null };
    }
    if (FALLBACK_RETRY_STATUSES.includes(status)) {
      return {
        kind: "retry",
        status,
        code: null,
        retryAfterMs: retryAfterMs(answer.headers, options),
      };
    }
    return terminal(
      "unexpected_status",
      `The service answered ${status} without an outcome`,
    );
  }
  const outcome = readOutcome((body as Record<string, unknown>).outcome);
  if (outcome === null) {
    return terminal("malformed_outcome", "The answer's outcome is malformed");
  }
  const rule = Object.hasOwn(table, outcome.code) ? table[outcome.code] : null;
  if (rule === null) {
    return terminal(
      "unknown_code",
      `The outcome code "${outcome.code}" is not in the outcomes table`,
    );
  }
  if (rule.retry !== outcome.retry) {
    return terminal(
      "retry_flag_mismatch",
      `The outcome "${outcome.code}" carries retry ${outcome.retry}, the table says ${rule.retry}`,
    );
  }
  if (rule.status !== status) {
    return terminal(
      "status_mismatch",
      `The outcome "${outcome.code}" came with status ${status}, the table says ${rule.status}`,
    );
  }
  if (status >= 200 && status < 300) {
    return { kind: "success", status, body, outcome };
  }
  if (rule.retry) {
    return {
      kind: "retry",
      status,
      code: outcome.code,
      retryAfterMs: retryAfterMs(answer.headers, options),
    };
  }
  return terminal("outcome", outcome.message, outcome.code);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The outcome object, closed: exactly `code`, `message`, `retry` of the right types. */
export function readOutcome(value: unknown): Outcome | null {
  if (!isRecord(value)) return null;
  const keys = Object.keys(value).sort();
  if (keys.join(",") !== "code,message,retry") return null;
  const { code, message, retry } = value;
  if (
    typeof code !== "string" || code === "" || typeof message !== "string" ||
    typeof retry !== "boolean"
  ) return null;
  return { code, message, retry };
}

/**
 * A valid bounded `Retry-After` in milliseconds: delta seconds (digits only) or an HTTP
 * date, not in the past by more than the clock's skew, at most `maxRetryAfterMs`.
 * Null when absent, malformed or over the bound (the caller backs off with jitter).
 */
export function retryAfterMs(
  headers: Headers,
  options: { now: number; maxRetryAfterMs?: number },
): number | null {
  const value = headers.get("retry-after");
  if (value === null) return null;
  const max = options.maxRetryAfterMs ?? 300_000;
  const text = value.trim();
  let ms: number;
  if (/^\d{1,10}$/.test(text)) {
    ms = Number(text) * 1000;
  } else if (
    /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(
      text,
    )
  ) {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return null;
    ms = Math.max(0, at - options.now);
  } else {
    return null;
  }
  return ms <= max ? ms : null;
}

/** Options of backoffMs(). */
export interface BackoffOptions {
  /** The first delay's ceiling (default 1000 ms). */
  baseMs?: number;
  /** The largest delay (default 60000 ms). */
  maxMs?: number;
  /** A number in [0, 1) (default Math.random); injected in tests. */
  random?: () => number;
}

/**
 * The delay before retry number `attempt` (1 for the first retry): exponential with
 * "equal jitter", between half and all of min(maxMs, baseMs * 2^(attempt-1)).
 */
export function backoffMs(
  attempt: number,
  options: BackoffOptions = {},
): number {
  const base = options.baseMs ?? 1000;
  const max = options.maxMs ?? 60_000;
  const random = options.random ?? Math.random;
  const ceiling = Math.min(max, base * 2 ** Math.max(0, attempt - 1));
  return Math.floor(ceiling / 2 + random() * (ceiling / 2));
}
