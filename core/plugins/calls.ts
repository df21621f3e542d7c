// The one door for calls the service makes to a plugin: the guarded outbound fetch with the service's policy.
import type { Services } from "../services.ts";
import {
  type OutboundBudget,
  outboundDownload,
  outboundFetch,
  outboundPolicyFromConfig,
  type OutboundRequest,
  type OutboundResult,
  type OutboundStreamResult,
} from "./outbound.ts";
import {
  inSpan,
  pluginCalls,
  SpanKind,
  SpanStatusCode,
  TELEMETRY_ON,
} from "../telemetry/mod.ts";

/** Calls a plugin; remote faults are values (`plugin_unreachable`, `plugin_timeout`...), never thrown. */
export type PluginCall = (
  request: OutboundRequest,
  options?: { budget?: OutboundBudget },
) => Promise<OutboundResult>;

/** The plugin call of a service container: its development origins only with `ENVIRONMENT=development`. */
export function pluginCallOf(
  services: Pick<Services, "config" | "pluginOutbound">,
): PluginCall {
  const policy = outboundPolicyFromConfig(services.config);
  return (request, options = {}) =>
    tracedCall(request, () =>
      outboundFetch(request, {
        ...services.pluginOutbound,
        ...options,
        policy,
      }));
}

/**
 * With telemetry on, a call is a client span (`plugin call <purpose>`) naming the plugin's host,
 * method and path (never the query string, headers or body) and the outcome, and is counted.
 */
function tracedCall<R extends OutboundResult | OutboundStreamResult>(
  request: OutboundRequest,
  call: () => Promise<R>,
): Promise<R> {
  if (!TELEMETRY_ON) return call();
  let url: URL | null = null;
  try {
    url = new URL(request.url);
  } catch { /* refused by the call itself */ }
  return inSpan(
    `plugin call ${request.purpose}`,
    {
      "http.request.method": request.method,
      "server.address": url?.hostname ?? "",
      "url.path": url?.pathname ?? "",
      "stave.plugin.purpose": request.purpose,
    },
    async (span) => {
      const result = await call();
      const outcome = result.ok ? String(result.status) : result.code;
      if (result.ok) {
        span.setAttribute("http.response.status_code", result.status);
      } else {
        span.setAttribute("error.type", result.code);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      pluginCalls.add(1, { purpose: request.purpose, outcome });
      return result;
    },
    SpanKind.CLIENT,
  );
}

/** Downloads a plugin's file (a media source's `copy`) as a stream, within `maxBytes`. */
export type PluginDownload = (
  request: OutboundRequest,
  options: { maxBytes: number },
) => Promise<OutboundStreamResult>;

/** The download of a service container, through the same guard and policy as its calls. */
export function pluginDownloadOf(
  services: Pick<Services, "config" | "pluginOutbound">,
): PluginDownload {
  const policy = outboundPolicyFromConfig(services.config);
  return (request, options) =>
    tracedCall(request, () =>
      outboundDownload(request, {
        ...services.pluginOutbound,
        limits: {
          ...services.pluginOutbound?.limits,
          maxBytes: options.maxBytes,
        },
        policy,
      }));
}
