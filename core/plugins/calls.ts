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
    outboundFetch(request, {
      ...services.pluginOutbound,
      ...options,
      policy,
    });
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
    outboundDownload(request, {
      ...services.pluginOutbound,
      limits: {
        ...services.pluginOutbound?.limits,
        maxBytes: options.maxBytes,
      },
      policy,
    });
}
