// The one guarded outbound fetch for every call the service makes to a plugin (spec 1 part 5.10, limits of part 8).
import {
  checkDestination,
  type OutboundPolicy,
  refusedAddressReason,
  strictOutboundPolicy,
} from "./destination.ts";
import { exchangeHttp1, Http1Error, startHttp1 } from "./http1.ts";
import { LIMITS } from "./protocol.ts";

export type { OutboundPolicy } from "./destination.ts";
export {
  checkDestination,
  parseIpv4,
  parseIpv6,
  refusedAddressReason,
  refusedIpv4Reason,
  refusedNameReason,
  strictOutboundPolicy,
} from "./destination.ts";

/** Why an outbound call produced no usable answer. Remote faults are values, never thrown. */
export type OutboundRefusalCode =
  | "url_not_https"
  | "url_destination_refused"
  | "remote_redirect_refused"
  | "plugin_unreachable"
  | "plugin_timeout"
  | "plugin_response_invalid";

/** A refused or failed call. `message` never holds a credential or the request body. */
export interface OutboundRefusal {
  ok: false;
  code: OutboundRefusalCode;
  message: string;
  /** Set on `plugin_response_invalid` when the answer was over the byte limit. */
  overByteLimit?: true;
}

/** A plugin's answer, read whole within the byte and time limits (any status but 3xx). */
export interface OutboundAnswer {
  ok: true;
  status: number;
  headers: Headers;
  body: Uint8Array;
  /** The address actually connected to. */
  address: string;
}

/** The answer of outboundFetch(). */
export type OutboundResult = OutboundAnswer | OutboundRefusal;

/** A streamed answer of outboundDownload() (any status but 3xx). */
export interface OutboundStreamAnswer {
  ok: true;
  status: number;
  headers: Headers;
  body: ReadableStream<Uint8Array>;
  address: string;
}

/** The answer of outboundDownload(). */
export type OutboundStreamResult = OutboundStreamAnswer | OutboundRefusal;

/** Raised inside a download stream when the answer breaks a limit or the connection fails. */
export class OutboundStreamError extends Error {
  override name = "OutboundStreamError";
  constructor(readonly code: OutboundRefusalCode, message: string) {
    super(message);
  }
}

/** The kinds of call, each with its limits from spec 1 part 8. */
export type OutboundPurpose =
  | "manifest"
  | "activation"
  | "rotation"
  | "invocation"
  | "media_download"
  | "catalogue";

/** Byte and time limits of one kind of call. */
export interface OutboundLimits {
  maxBytes: number;
  timeoutMs: number;
}

/** The limits per purpose; media downloads take the media file limit from the caller. */
export const OUTBOUND_LIMITS: Record<OutboundPurpose, OutboundLimits> = {
  manifest: {
    maxBytes: LIMITS.handoff.max_bytes,
    timeoutMs: LIMITS.handoff.timeout_ms,
  },
  activation: {
    maxBytes: LIMITS.handoff.max_bytes,
    timeoutMs: LIMITS.handoff.timeout_ms,
  },
  rotation: {
    maxBytes: LIMITS.handoff.max_bytes,
    timeoutMs: LIMITS.handoff.timeout_ms,
  },
  invocation: {
    maxBytes: LIMITS.invocation.max_bytes,
    timeoutMs: LIMITS.invocation.timeout_ms,
  },
  media_download: {
    maxBytes: 100 * 1024 * 1024,
    timeoutMs: LIMITS.media_download.timeout_ms,
  },
  catalogue: {
    maxBytes: LIMITS.catalogues.max_page_bytes,
    timeoutMs: LIMITS.handoff.timeout_ms,
  },
};

/**
 * A shared byte and time budget for one invocation: the request, the plugin's exchange
 * and the answer together get 64 KB and 10 seconds (spec 1 part 8). The exchange route
 * spends from the same budget with spend().
 */
export class OutboundBudget {
  readonly maxBytes: number;
  readonly deadlineMs: number;
  #spent = 0;
  #now: () => number;
  /** Starts the budget now by `now` (the service clock), which also judges what time is left. */
  constructor(limits: OutboundLimits, now: () => number) {
    this.#now = now;
    this.maxBytes = limits.maxBytes;
    this.deadlineMs = now() + limits.timeoutMs;
  }
  /** Records bytes used outside outboundFetch (the exchange request and answer). */
  spend(bytes: number): void {
    this.#spent += bytes;
  }
  get spentBytes(): number {
    return this.#spent;
  }
  remainingBytes(): number {
    return Math.max(0, this.maxBytes - this.#spent);
  }
  remainingMs(): number {
    return Math.max(0, this.deadlineMs - this.#now());
  }
}

/** Resolves a name to addresses of one record type (default: `Deno.resolveDns`). */
export type ResolveDns = (
  name: string,
  type: "A" | "AAAA",
  signal: AbortSignal,
) => Promise<string[]>;

/** Opens a TCP connection to a checked address (default: `Deno.connect`). */
export type ConnectTcp = (
  target: { address: string; port: number },
) => Promise<Deno.TcpConn>;

/** Starts a timer; returns a function that cancels it (default: setTimeout). */
export type StartTimer = (ms: number, fire: () => void) => () => void;

/** One call to a plugin. */
export interface OutboundRequest {
  url: string;
  method: "GET" | "POST";
  purpose: OutboundPurpose;
  /** A JSON value sent as `application/json`. */
  json?: unknown;
  /** Extra request headers (never a cookie; the caller adds only what the protocol needs). */
  headers?: Record<string, string>;
}

/** Options of outboundFetch(); everything a test needs to inject. */
export interface OutboundOptions {
  /** Development origins and environment, from core/config.ts (outboundPolicyFromConfig). */
  policy?: OutboundPolicy;
  resolveDns?: ResolveDns;
  connect?: ConnectTcp;
  /** Extra root certificates (tests with a local TLS server). */
  caCerts?: string[];
  startTimer?: StartTimer;
  /** Overrides the purpose's limits (tests keep timeouts short with this). */
  limits?: Partial<OutboundLimits>;
  /** The invocation budget shared with the exchange; bounds bytes and time together. */
  budget?: OutboundBudget;
}

const encoder = new TextEncoder();
const forbiddenHeaders = new Set([
  "authorization",
  "proxy-authorization",
  "cookie",
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
]);

function refusal(code: OutboundRefusalCode, message: string): OutboundRefusal {
  return { ok: false, code, message };
}

/** The outbound policy from the service settings (dev origins only in development). */
export function outboundPolicyFromConfig(
  config: { environment: string; pluginDevOrigins: readonly string[] },
): OutboundPolicy {
  const development = config.environment === "development";
  return {
    development,
    devOrigins: development ? [...config.pluginDevOrigins] : [],
  };
}

const defaultResolveDns: ResolveDns = (name, type, signal) =>
  Deno.resolveDns(name, type, { signal });

const defaultConnect: ConnectTcp = ({ address, port }) =>
  Deno.connect({ hostname: address, port, transport: "tcp" });

const defaultStartTimer: StartTimer = (ms, fire) => {
  const id = setTimeout(fire, ms);
  return () => clearTimeout(id);
};

/**
 * Calls a plugin: checks the URL, resolves the name and checks every address, connects
 * to the checked address (TLS with the name for SNI and certificate checks), sends one
 * request, never follows a redirect, and reads the answer within the byte and time
 * limits of its purpose. Never throws for a remote fault.
 */
export async function outboundFetch(
  request: OutboundRequest,
  options: OutboundOptions = {},
): Promise<OutboundResult> {
  return await call(request, options, "buffer") as OutboundResult;
}

/**
 * Like outboundFetch(), but the answer's body arrives as a stream (a media download): the
 * byte limit and the deadline still hold while it is read, and the stream errors with an
 * OutboundStreamError (`plugin_response_invalid`, `plugin_timeout`, `plugin_unreachable`)
 * when one is broken. Cancel the stream to give up early; it closes the connection.
 */
export async function outboundDownload(
  request: OutboundRequest,
  options: OutboundOptions = {},
): Promise<OutboundStreamResult> {
  return await call(request, options, "stream") as OutboundStreamResult;
}

async function call(
  request: OutboundRequest,
  options: OutboundOptions,
  mode: "buffer" | "stream",
): Promise<OutboundResult | OutboundStreamResult> {
  for (const name of Object.keys(request.headers ?? {})) {
    if (forbiddenHeaders.has(name.toLowerCase())) {
      // A bug, not a remote fault: no credential or cookie ever goes to a plugin.
      throw new TypeError(
        `Cannot send header "${name}" to a plugin: calls carry no credential or cookie`,
      );
    }
  }
  const policy = options.policy ?? strictOutboundPolicy;
  const destination = checkDestination(request.url, policy);
  if (!destination.ok) return destination;

  const base = OUTBOUND_LIMITS[request.purpose];
  let maxBytes = options.limits?.maxBytes ?? base.maxBytes;
  let timeoutMs = options.limits?.timeoutMs ?? base.timeoutMs;
  const body = request.json === undefined
    ? undefined
    : encoder.encode(JSON.stringify(request.json));
  const budget = options.budget;
  if (budget) {
    budget.spend(body?.byteLength ?? 0);
    maxBytes = Math.min(maxBytes, budget.remainingBytes());
    timeoutMs = Math.min(timeoutMs, budget.remainingMs());
    if (budget.remainingBytes() === 0 && body && body.byteLength > 0) {
      return refusal(
        "plugin_response_invalid",
        `The invocation exceeds its ${budget.maxBytes} byte budget`,
      );
    }
    if (timeoutMs === 0) {
      return refusal("plugin_timeout", "The invocation's time budget is spent");
    }
  } else if (body && body.byteLength > maxBytes) {
    return refusal(
      "plugin_response_invalid",
      `The request is larger than ${maxBytes} bytes`,
    );
  }

  const startTimer = options.startTimer ?? defaultStartTimer;
  const abort = new AbortController();
  let timedOut = false;
  let handedOff = false;
  let conn: Deno.Conn | undefined;
  let fireTimeout: () => void = () => {};
  const timeout = new Promise<"timeout">((resolve) => {
    fireTimeout = () => resolve("timeout");
  });
  const cancelTimer = startTimer(timeoutMs, () => {
    timedOut = true;
    abort.abort();
    try {
      conn?.close();
    } catch { /* already closed */ }
    fireTimeout();
  });
  const timeoutRefusal = refusal(
    "plugin_timeout",
    `The plugin did not answer within ${timeoutMs} ms`,
  );
  try {
    let address = destination.host;
    if (destination.hostKind === "name" && !destination.devOrigin) {
      const resolved = await Promise.race([
        resolveChecked(
          destination.host,
          options.resolveDns ?? defaultResolveDns,
          abort.signal,
        ),
        timeout,
      ]);
      if (resolved === "timeout") return timeoutRefusal;
      if (!resolved.ok) return resolved;
      address = resolved.address;
    }
    const connect = options.connect ?? defaultConnect;
    const connecting = connect({ address, port: destination.port }).then(
      (c) => ({ ok: true as const, conn: c }),
      () => ({ ok: false as const }),
    );
    const opened = await Promise.race([connecting, timeout]);
    if (opened === "timeout") {
      // A connection that completes after the deadline is closed, not leaked.
      connecting.then((late) => late.ok && closeQuietly(late.conn));
      return timeoutRefusal;
    }
    if (!opened.ok) {
      return refusal("plugin_unreachable", "The plugin could not be reached");
    }
    conn = opened.conn;
    if (timedOut) return timeoutRefusal;
    if (destination.tls) {
      const securing = Deno.startTls(opened.conn, {
        hostname: destination.host,
        caCerts: options.caCerts,
      }).then(
        (c) => ({ ok: true as const, conn: c }),
        () => ({ ok: false as const }),
      );
      const secured = await Promise.race([securing, timeout]);
      if (secured === "timeout") {
        securing.then((late) => late.ok && closeQuietly(late.conn));
        return timeoutRefusal;
      }
      if (!secured.ok) {
        return refusal(
          "plugin_unreachable",
          "The plugin's TLS handshake failed (certificate or protocol)",
        );
      }
      conn = secured.conn;
    }
    const headers = new Headers(request.headers);
    headers.set("user-agent", "Stave-Plugin-Client/1");
    if (!headers.has("accept")) headers.set("accept", "application/json");
    if (body) headers.set("content-type", "application/json");
    const url = destination.url;
    const defaultPort = destination.tls ? 443 : 80;
    const hostHeader = destination.port === defaultPort
      ? url.hostname
      : `${url.hostname}:${destination.port}`;
    const target = {
      method: request.method,
      target: `${url.pathname}${url.search}`,
      host: hostHeader,
      headers,
      body,
    };
    if (mode === "stream") {
      const started = await Promise.race([
        startHttp1(conn, target, maxBytes).then(
          (answer) => ({ ok: true as const, answer }),
          (error: unknown) => ({ ok: false as const, error }),
        ),
        timeout,
      ]);
      if (started === "timeout" || timedOut) return timeoutRefusal;
      if (!started.ok) return readFailure(started.error);
      const { answer } = started;
      if (answer.status >= 300 && answer.status < 400) {
        return redirectRefusal(answer.status);
      }
      const declared = answer.headers.get("content-length");
      if (declared !== null && Number(declared) > maxBytes) {
        return refusal(
          "plugin_response_invalid",
          `The answer is larger than ${maxBytes} bytes`,
        );
      }
      // The stream owns the connection and the deadline from here on.
      const owned = conn;
      handedOff = true;
      const finish = () => {
        cancelTimer();
        closeQuietly(owned);
      };
      const chunks = answer.chunks();
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const next = await chunks.next();
            if (next.done) {
              finish();
              controller.close();
            } else {
              controller.enqueue(next.value);
            }
          } catch (error) {
            finish();
            const failed = timedOut ? timeoutRefusal : readFailure(error);
            controller.error(
              new OutboundStreamError(failed.code, failed.message),
            );
          }
        },
        cancel() {
          finish();
        },
      });
      return {
        ok: true,
        status: answer.status,
        headers: answer.headers,
        body: stream,
        address,
      };
    }
    const exchanged = await Promise.race([
      exchangeHttp1(conn, target, maxBytes).then(
        (response) => ({ ok: true as const, response }),
        (error: unknown) => ({ ok: false as const, error }),
      ),
      timeout,
    ]);
    if (exchanged === "timeout" || timedOut) return timeoutRefusal;
    if (!exchanged.ok) return readFailure(exchanged.error);
    const { response } = exchanged;
    budget?.spend(response.body.byteLength);
    if (response.status >= 300 && response.status < 400) {
      return redirectRefusal(response.status);
    }
    return {
      ok: true,
      status: response.status,
      headers: response.headers,
      body: response.body,
      address,
    };
  } finally {
    if (!handedOff) {
      cancelTimer();
      if (conn) closeQuietly(conn);
    }
  }
}

function readFailure(error: unknown): OutboundRefusal {
  if (error instanceof Http1Error && error.kind === "too_large") {
    return {
      ...refusal("plugin_response_invalid", error.message),
      overByteLimit: true,
    };
  }
  if (error instanceof Http1Error && error.kind !== "closed") {
    return refusal("plugin_response_invalid", error.message);
  }
  return refusal(
    "plugin_unreachable",
    "The plugin closed the connection without an answer",
  );
}

function redirectRefusal(status: number): OutboundRefusal {
  return refusal(
    "remote_redirect_refused",
    `The plugin answered a redirect (${status}): plugin calls never follow redirects`,
  );
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch { /* already closed */ }
}

async function resolveChecked(
  name: string,
  resolveDns: ResolveDns,
  signal: AbortSignal,
): Promise<{ ok: true; address: string } | OutboundRefusal> {
  const lookups = await Promise.all(
    (["A", "AAAA"] as const).map((type) =>
      resolveDns(name, type, signal).then(
        (addresses) => addresses,
        () => [] as string[],
      )
    ),
  );
  const [v4, v6] = lookups;
  const all = [...v4, ...v6];
  if (all.length === 0) {
    return refusal(
      "plugin_unreachable",
      `The plugin's host name "${name}" does not resolve`,
    );
  }
  for (const address of all) {
    const reason = refusedAddressReason(address);
    if (reason !== null) {
      return refusal(
        "url_destination_refused",
        `The host name "${name}" resolves to a ${reason} address`,
      );
    }
  }
  // Every address is public; IPv4 first since it is what most plugins serve reliably.
  return { ok: true, address: v4[0] ?? v6[0] };
}

/** Parses an answer body as JSON; a body that is not JSON is `plugin_response_invalid`. */
export function answerJson(
  answer: OutboundAnswer,
): { ok: true; json: unknown } | OutboundRefusal {
  try {
    return {
      ok: true,
      json: JSON.parse(new TextDecoder().decode(answer.body)),
    };
  } catch {
    return refusal(
      "plugin_response_invalid",
      "The plugin's answer is not JSON",
    );
  }
}
