// This module is browser compatible.
// A client of the Stave plugin API that retries only what spec 1 part 7 allows, within attempt and age caps.
import {
  backoffMs,
  type Classification,
  classifyAnswer,
  type TerminalReason,
} from "./classify.ts";
import { OUTCOMES, PROTOCOL_VERSION } from "./outcomes.gen.ts";

/** Reads the installation token as stored now (re-read after a rotation). */
export type ReadToken = () => string | Promise<string>;

/** Options of a PluginClient. */
export interface PluginClientOptions {
  /** The service's base URL (`https://cms.example.com`), checked with checkServiceUrl(). */
  serviceUrl: string;
  /** Development origins allowed over plain HTTP (`SVC_DEV_ORIGINS` with `ENVIRONMENT=development`). */
  servicePolicy?: ServiceUrlPolicy;
  readToken: ReadToken;
  /** Injected in tests; default globalThis.fetch. */
  fetch?: typeof fetch;
  /** The clock in epoch ms; default Date.now. */
  now?: () => number;
  /** Waits `ms`; default a timer. Tests inject one that advances their clock. */
  sleep?: (ms: number) => Promise<void>;
  /** Jitter source in [0, 1); default Math.random. */
  random?: () => number;
  /** Attempts per call, the first included (`MAX_ATTEMPTS`, default 5). */
  maxAttempts?: number;
  /** No attempt starts later than this after the call began (default 900000 = `MAX_LATENESS_MS`). */
  maxAgeMs?: number;
  /** The largest `Retry-After` honoured (`MAX_RETRY_AFTER_MS`, default 300000). */
  maxRetryAfterMs?: number;
  /** Backoff ceiling of the first retry (default 1000) and of any retry (default 60000). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** One attempt's time limit (default 10000). */
  attemptTimeoutMs?: number;
}

/** One call. */
export interface PluginRequest {
  method: "GET" | "POST" | "PUT";
  /** Path under `/api/plugin/v1`, e.g. `/content/abc/transitions/published`. */
  path: string;
  json?: unknown;
  /** Required on writes; sent unchanged on every retry. */
  idempotencyKey?: string;
  /** Epoch ms: no attempt runs past it (a lease end, minus a margin). */
  deadline?: number;
  /** Epoch ms the work began (age cap origin); default: when the call began. */
  startedAt?: number;
  /**
   * Asked before every attempt, the first included: false ends the call without sending
   * again (kind `exhausted`, `stopped: true`). For work a person may stop meanwhile, such
   * as a running release; an attempt already sent is never recalled.
   */
  proceed?: () => boolean | Promise<boolean>;
}

/** The body of a transition command (spec 1 part 2.7). */
export interface TransitionCommandBody {
  kind: "publish" | "unpublish";
  expected_current_version_id?: string | null;
  expected_published_version_id?: string | null;
  expected_workflow_revision: number;
  delegation_id: string;
  locale?: string;
}

/** What a call came to. */
export type PluginResult =
  | {
    kind: "success";
    status: number;
    body: unknown;
    outcomeCode: string | null;
    attempts: number;
  }
  | {
    kind: "terminal";
    status: number;
    code: string | null;
    reason: TerminalReason;
    message: string;
    body: unknown;
    attempts: number;
  }
  | {
    /** Every attempt was retryable and a cap (attempts, age, deadline) was reached. */
    kind: "exhausted";
    status: number | null;
    code: string | null;
    /** The last answer's bounded `Retry-After` in ms, for a caller that retries later itself. */
    retryAfterMs: number | null;
    attempts: number;
    /** `proceed` answered false: the caller stopped the call. */
    stopped?: true;
  };

/** Thrown by assertProtocol() when the service's published outcomes differ from the SDK's. */
export class ProtocolMismatchError extends Error {
  override name = "ProtocolMismatchError";
  constructor(message: string, readonly differences: string[]) {
    super(message);
  }
}

/** The service-URL rule of spec 1 part 5.9 for plugins. */
export interface ServiceUrlPolicy {
  /** True only when the plugin runs with `ENVIRONMENT=development`. */
  development: boolean;
  /** Exact origins (`SVC_DEV_ORIGINS`) allowed over plain HTTP in development. */
  devOrigins: readonly string[];
}

/**
 * Checks a service base URL: https with no credentials, query or fragment; plain HTTP
 * only in development for an exact listed origin. Answers the normalised base URL.
 */
export function checkServiceUrl(
  value: string,
  policy: ServiceUrlPolicy = { development: false, devOrigins: [] },
): { ok: true; url: string } | { ok: false; message: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, message: "The service URL is not a URL" };
  }
  if (url.username !== "" || url.password !== "") {
    return { ok: false, message: "The service URL carries credentials" };
  }
  if (
    url.search !== "" || url.hash !== "" || value.includes("#") ||
    value.includes("?")
  ) {
    return {
      ok: false,
      message: "The service URL carries a query or fragment",
    };
  }
  const dev = policy.development && policy.devOrigins.includes(url.origin);
  if (url.protocol !== "https:" && !(dev && url.protocol === "http:")) {
    return {
      ok: false,
      message:
        "The service URL must be https (plain http only for a listed development origin)",
    };
  }
  return { ok: true, url: url.href.replace(/\/$/, "") };
}

/**
 * Compares a published `protocol-v1.schema.json` document with the SDK's outcomes
 * table; throws ProtocolMismatchError naming every difference.
 */
export function assertOutcomesTable(published: unknown): void {
  const differences: string[] = [];
  const doc = published as { protocol_version?: unknown; outcomes?: unknown };
  if (typeof doc !== "object" || doc === null) {
    throw new ProtocolMismatchError("The published protocol is not an object", [
      "document",
    ]);
  }
  if (doc.protocol_version !== PROTOCOL_VERSION) {
    differences.push(`protocol_version ${String(doc.protocol_version)}`);
  }
  const theirs =
    (typeof doc.outcomes === "object" && doc.outcomes !== null
      ? doc.outcomes
      : {}) as Record<string, { status?: unknown; retry?: unknown }>;
  for (const [code, rule] of Object.entries(OUTCOMES)) {
    const other = Object.hasOwn(theirs, code) ? theirs[code] : undefined;
    if (other === undefined) differences.push(`${code}: missing`);
    else if (
      other.status !== rule.status || other.retry !== rule.retry ||
      Object.keys(other).length !== 2
    ) {
      differences.push(
        `${code}: ${JSON.stringify(other)} instead of ${JSON.stringify(rule)}`,
      );
    }
  }
  for (const code of Object.keys(theirs)) {
    if (!Object.hasOwn(OUTCOMES, code)) differences.push(`${code}: unknown`);
  }
  if (differences.length > 0) {
    throw new ProtocolMismatchError(
      `The service's outcomes table differs from this SDK's: ${
        differences.join("; ")
      }`,
      differences,
    );
  }
}

const defaultSleep = (ms: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A client of `/api/plugin/v1` for one installation. */
export class PluginClient {
  readonly serviceUrl: string;
  #options: PluginClientOptions;
  #fetch: typeof fetch;
  #now: () => number;
  #sleep: (ms: number) => Promise<void>;

  /** Throws a TypeError when the service URL breaks the rule of checkServiceUrl(). */
  constructor(options: PluginClientOptions) {
    const checked = checkServiceUrl(options.serviceUrl, options.servicePolicy);
    if (!checked.ok) throw new TypeError(checked.message);
    this.serviceUrl = checked.url;
    this.#options = options;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? defaultSleep;
  }

  /**
   * Fetches the service's published `protocol-v1.schema.json` and asserts its outcomes
   * table equals the SDK's. Call it at start; a mismatch throws ProtocolMismatchError.
   */
  async assertProtocol(): Promise<void> {
    const response = await this.#fetch(
      `${this.serviceUrl}/api/plugin-schemas/protocol-v1.schema.json`,
      { redirect: "manual", headers: { accept: "application/json" } },
    );
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new ProtocolMismatchError(
        `The service's protocol-v1.schema.json answered ${response.status}`,
        ["unavailable"],
      );
    }
    assertOutcomesTable(await response.json());
  }

  /**
   * Sends one call, retrying only retryable answers (structured `rate_limited` and
   * `temporary_failure`, bare 429/500/502/503/504, network faults and timeouts) while
   * attempts, age and deadline allow; after `plugin_unauthorized` it re-reads the token
   * once and retries only when it changed since the request was sent.
   */
  async request(request: PluginRequest): Promise<PluginResult> {
    const o = this.#options;
    const maxAttempts = o.maxAttempts ?? 5;
    const maxAgeMs = o.maxAgeMs ?? 900_000;
    const startedAt = request.startedAt ?? this.#now();
    const ageLimit = startedAt + maxAgeMs;
    const deadline = request.deadline ?? Infinity;
    // The age cap bounds when an attempt starts (one exactly at the cap still starts, as spec 1
    // refuses only "later than" due_at plus MAX_LATENESS_MS); the deadline bounds when it ends.
    const mayStart = (at: number) => at <= ageLimit && at < deadline;
    let token = await o.readToken();
    let reReadToken = false;
    let attempts = 0;
    let last: {
      status: number | null;
      code: string | null;
      retryAfterMs: number | null;
    } = { status: null, code: null, retryAfterMs: null };
    let stopped = false;
    while (attempts < maxAttempts) {
      if (!mayStart(this.#now())) break;
      if (request.proceed && !(await request.proceed())) {
        stopped = true;
        break;
      }
      attempts++;
      const answer = await this.#attempt(request, token, deadline);
      if (answer.kind === "success") {
        return {
          kind: "success",
          status: answer.status,
          body: answer.body,
          outcomeCode: answer.outcome?.code ?? null,
          attempts,
        };
      }
      if (answer.kind === "terminal") {
        if (answer.code === "plugin_unauthorized" && !reReadToken) {
          reReadToken = true;
          const fresh = await o.readToken();
          if (fresh !== token && attempts < maxAttempts) {
            // Rotated while the request was in flight: one more try, no backoff.
            token = fresh;
            continue;
          }
        }
        return { ...answer, attempts };
      }
      last = {
        status: answer.status === 0 ? null : answer.status,
        code: answer.code,
        retryAfterMs: answer.retryAfterMs,
      };
      if (attempts >= maxAttempts) break;
      const delay = answer.retryAfterMs ??
        backoffMs(attempts, {
          baseMs: o.backoffBaseMs,
          maxMs: o.backoffMaxMs,
          random: o.random,
        });
      if (!mayStart(this.#now() + delay)) break;
      await this.#sleep(delay);
    }
    return {
      kind: "exhausted",
      status: last.status,
      code: last.code,
      retryAfterMs: last.retryAfterMs,
      attempts,
      ...(stopped ? { stopped: true as const } : {}),
    };
  }

  /** `GET /context`: the installation context for the token. */
  context(): Promise<PluginResult> {
    return this.request({ method: "GET", path: "/context" });
  }

  /** `GET /content/{id}`, narrowed to what the person may do when `delegationId` is given. */
  content(instanceId: string, delegationId?: string): Promise<PluginResult> {
    const query = delegationId === undefined
      ? ""
      : `?delegation_id=${encodeURIComponent(delegationId)}`;
    return this.request({
      method: "GET",
      path: `/content/${encodeURIComponent(instanceId)}${query}`,
    });
  }

  /**
   * The transition command of spec 1 part 2.7. The same key and body are sent on every
   * retry; pass `deadline` and `startedAt` from the schedule's lease and due time.
   */
  transition(
    instanceId: string,
    targetState: string,
    command: TransitionCommandBody,
    options: { idempotencyKey: string; deadline?: number; startedAt?: number },
  ): Promise<PluginResult> {
    return this.request({
      method: "POST",
      path: `/content/${encodeURIComponent(instanceId)}/transitions/${
        encodeURIComponent(targetState)
      }`,
      json: command,
      ...options,
    });
  }

  /** `POST /launch/exchange`: a launch code (`svc_launch`) for a delegation record. */
  exchangeLaunch(code: string): Promise<PluginResult> {
    return this.request({
      method: "POST",
      path: "/launch/exchange",
      json: { code },
    });
  }

  /** `POST /invocations/exchange`: an invocation envelope's code for what the call may see. */
  exchangeInvocation(code: string): Promise<PluginResult> {
    return this.request({
      method: "POST",
      path: "/invocations/exchange",
      json: { code },
    });
  }

  async #attempt(
    request: PluginRequest,
    token: string,
    deadline: number,
  ): Promise<Classification> {
    const headers = new Headers({
      accept: "application/json",
      authorization: `Bearer ${token}`,
    });
    if (request.json !== undefined) {
      headers.set("content-type", "application/json");
    }
    if (request.idempotencyKey !== undefined) {
      headers.set("idempotency-key", request.idempotencyKey);
    }
    const timeout = Math.max(
      1,
      Math.min(
        this.#options.attemptTimeoutMs ?? 10_000,
        deadline - this.#now(),
      ),
    );
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeout);
    try {
      const response = await this.#fetch(
        `${this.serviceUrl}/api/plugin/v1${request.path}`,
        {
          method: request.method,
          headers,
          body: request.json === undefined
            ? undefined
            : JSON.stringify(request.json),
          redirect: "manual",
          signal: abort.signal,
        },
      );
      const text = await response.text();
      return classifyAnswer(
        { status: response.status, headers: response.headers, text },
        {
          now: this.#now(),
          maxRetryAfterMs: this.#options.maxRetryAfterMs,
        },
      );
    } catch {
      // A network fault or a timeout: the request may still have reached the service,
      // which is why writes carry an Idempotency-Key repeated unchanged.
      return { kind: "retry", status: 0, code: null, retryAfterMs: null };
    } finally {
      clearTimeout(timer);
    }
  }
}
