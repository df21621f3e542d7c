// OpenTelemetry through Deno's built-in exporter (`OTEL_DENO=true`): the service's spans and metrics.
// Off, the API's no-op tracer and meter cost next to nothing and nothing is exported.
import {
  type Attributes,
  metrics,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";

/** True when Deno exports telemetry (`OTEL_DENO=true` at start; docs/deploy.md). */
export const TELEMETRY_ON: boolean = readEnv("OTEL_DENO") === "true";

function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    // Without --allow-env for it, telemetry stays off.
    return undefined;
  }
}

const tracer = trace.getTracer("stave");
const meter = metrics.getMeter("stave");

/** Requests answered, by method, route pattern and status class (`2xx`…`5xx`). */
export const requestCount = meter.createCounter("stave.http.requests", {
  description: "HTTP requests answered, by route pattern",
});
/** Seconds from the request to its answer, by method, route pattern and status class. */
export const requestDuration = meter.createHistogram(
  "stave.http.request.duration",
  { description: "Duration of HTTP requests by route pattern", unit: "s" },
);
/** Requests answered 5xx, by route pattern. */
export const requestErrors = meter.createCounter("stave.http.errors", {
  description: "HTTP requests answered with a 5xx status",
});
/** KV operations by kind (`get`, `set`, `commit`, …) and outcome. */
export const kvOperations = meter.createCounter("stave.kv.operations", {
  description: "Deno KV operations",
});
/** Runs of each `Deno.cron` job (`plugin notifications`, `scheduling tick`, …) by outcome. */
export const cronRuns = meter.createCounter("stave.cron.runs", {
  description: "Scheduled job runs",
});
/** Public answers served from the kept answers (`hit`) or computed (`miss`). */
export const answerCache = meter.createCounter("stave.answer_cache.lookups", {
  description: "Public answer cache lookups",
});
/** Calls to plugins by purpose and outcome. */
export const pluginCalls = meter.createCounter("stave.plugin.calls", {
  description: "Outbound calls to plugins",
});

/** What a connection pool reports: connections open, idle, and callers waiting for one. */
export interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

const pools = new Map<PoolCounts, string>();
const poolConnections = meter.createObservableGauge(
  "stave.db.pool.connections",
  { description: "PostgreSQL pool connections by state" },
);
poolConnections.addCallback((result) => {
  for (const [pool, name] of pools) {
    const used = pool.totalCount - pool.idleCount;
    result.observe(used, { "db.pool.name": name, state: "used" });
    result.observe(pool.idleCount, { "db.pool.name": name, state: "idle" });
    result.observe(pool.waitingCount, {
      "db.pool.name": name,
      state: "waiting",
    });
  }
});

/** Reports `pool`'s connections as `stave.db.pool.connections` until {@link forgetPool}. */
export function observePool(pool: PoolCounts, name: string): void {
  if (TELEMETRY_ON) pools.set(pool, name);
}

/** Stops reporting a closed pool. */
export function forgetPool(pool: PoolCounts): void {
  pools.delete(pool);
}

/** The span of the request being answered (Deno's own `Deno.serve` span), if any. */
export function requestSpan(): Span | undefined {
  return trace.getActiveSpan();
}

/**
 * A child span for one SQL statement that took `ms` and has just ended. The text is the
 * parameterised statement Kysely or a named statement sent: values are bind parameters and never
 * appear in it.
 */
export function recordQuery(
  sqlText: string,
  ms: number,
  failed: boolean,
  name?: string,
): void {
  if (!TELEMETRY_ON) return;
  const end = performance.timeOrigin + performance.now();
  const operation = /^\s*(\w+)/.exec(sqlText)?.[1]?.toUpperCase() ?? "QUERY";
  const span = tracer.startSpan(name ? `${operation} ${name}` : operation, {
    kind: SpanKind.CLIENT,
    startTime: end - ms,
    attributes: {
      "db.system.name": "postgresql",
      "db.operation.name": operation,
      "db.query.text": sqlText.slice(0, 2000),
      ...(name ? { "db.query.summary": name } : {}),
    },
  });
  if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end(end);
}

/**
 * Runs `work` inside a span named `name` (a child of the active one), ending it when `work`
 * settles; the attributes `work` answers through `finish` are added before it ends.
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  if (!TELEMETRY_ON) return await work(noSpan);
  return await tracer.startActiveSpan(
    name,
    { kind, attributes },
    async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: (error as Error)?.name ?? "Error",
        });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

const noSpan = trace.wrapSpanContext({
  traceId: "00000000000000000000000000000000",
  spanId: "0000000000000000",
  traceFlags: 0,
});

export { SpanKind, SpanStatusCode };
