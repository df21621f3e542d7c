// This module is browser compatible.
// The Stave plugin SDK: a plugin-API client with the part 7 classification rules, and the protocol's outcomes table.
export {
  assertOutcomesTable,
  checkServiceUrl,
  PluginClient,
  type PluginClientOptions,
  type PluginRequest,
  type PluginResult,
  ProtocolMismatchError,
  type ReadToken,
  type ServiceUrlPolicy,
} from "./client.ts";
export {
  backoffMs,
  type BackoffOptions,
  type Classification,
  classifyAnswer,
  type ClassifyOptions,
  FALLBACK_RETRY_STATUSES,
  type Outcome,
  type RawAnswer,
  readOutcome,
  retryAfterMs,
  type TerminalReason,
} from "./classify.ts";
export { OUTCOMES, PROTOCOL_VERSION } from "./outcomes.gen.ts";
