// The context of one call the service makes to a plugin on a site, built from the services.
import type { Services } from "../services.ts";
import { pluginCallOf } from "./calls.ts";
import type { InvocationCaller } from "./invocation_caller.ts";
import type { InvokeContext } from "./invocations.ts";

/**
 * The context of a call the service makes to a plugin for `caller` on a site: the services'
 * database, KV and clock, and the one guarded call.
 */
export function invokeContextFor(
  services: Pick<Services, "db" | "kv" | "clock" | "config" | "pluginOutbound">,
  siteId: string,
  caller: InvocationCaller,
): InvokeContext {
  return {
    db: services.db,
    kv: services.kv,
    clock: services.clock,
    call: pluginCallOf(services),
    siteId,
    caller,
  };
}
