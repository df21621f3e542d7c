// The shape every keyed JSON command of the plugin API shares: the grant's capabilities, the
// Idempotency-Key, the closed body, then the command run once under its key.
import type { Context } from "hono";
import type { z } from "zod";
import { IdempotencyStore } from "../kv/idempotency_store.ts";
import type { AppEnv } from "../web/env.ts";
import {
  installationOf,
  parseBody,
  type PluginRefusal,
  refusalResponse,
  requireCapabilities,
} from "./api_support.ts";
import type { Installation } from "./installation_store.ts";
import { commandKey, keyDigest, runPluginCommand } from "./keyed.ts";
import type { Capability } from "./protocol.ts";

/** What a keyed command runs with: its parsed body, the installation and the key's digest. */
export interface KeyedCommandInput<T> {
  body: T;
  installation: Installation;
  /** The key's digest, kept with the effect (never the key itself). */
  digest: string;
}

/** A run's answer: `applied` answers are kept for replays, the others free the key. */
export interface KeyedCommandAnswer {
  applied: boolean;
  response: Response;
}

/** A refusal as a run's answer: nothing applied, the key freed. */
export function refusedCommand(refusal: PluginRefusal): KeyedCommandAnswer {
  return { applied: false, response: refusalResponse(refusal) };
}

/**
 * The capabilities a command needs: fixed, or read off its parsed body (a publish needs
 * `workflow:publish`, an unpublish `workflow:unpublish`), where the body may also be refused.
 */
export type NeededCapabilities<T> =
  | readonly Capability[]
  | ((body: T) => readonly Capability[] | PluginRefusal);

/**
 * Checks the installation's grant for `needed`, reads the Idempotency-Key and the body against
 * `schema`, then runs `run` once under the key (replays answer the first result). Fixed
 * capabilities are checked first; capabilities read off the body once the body is parsed.
 */
export async function keyedCommand<S extends z.ZodType>(
  c: Context<AppEnv>,
  needed: NeededCapabilities<z.output<S>>,
  schema: S,
  run: (input: KeyedCommandInput<z.output<S>>) => Promise<KeyedCommandAnswer>,
): Promise<Response> {
  const installation = installationOf(c);
  if (typeof needed !== "function") {
    const denied = requireCapabilities(installation, needed);
    if (denied) return refusalResponse(denied);
  }
  const key = commandKey(c.req.raw.headers);
  if (key instanceof Response) return key;
  const rawBody = await c.req.text();
  const parsed = await parseBody(c, schema);
  if (!parsed.ok) return refusalResponse(parsed);
  if (typeof needed === "function") {
    const wanted = needed(parsed.value);
    if (!Array.isArray(wanted)) {
      return refusalResponse(wanted as PluginRefusal);
    }
    const denied = requireCapabilities(installation, wanted);
    if (denied) return refusalResponse(denied);
  }
  const { kv, clock } = c.var.services;
  return await runPluginCommand({
    store: new IdempotencyStore(kv, { clock }),
    installation,
    key,
    method: c.req.method,
    path: new URL(c.req.url).pathname,
    rawBody,
    run: () =>
      run({
        body: parsed.value,
        installation,
        digest: keyDigest(installation, key),
      }),
  });
}
