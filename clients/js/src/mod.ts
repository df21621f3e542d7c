// @stave/client: a small, dependency-free typed client of Stave's public read API (`/v1`).
// This module is browser compatible.
export {
  type CallOptions,
  type ClientOptions,
  createClient,
  type FilterValue,
  type FormInput,
  type ListOptions,
  type SingleOptions,
  StaveClient,
  type SyncOptions,
} from "./client.ts";
export { StaveError, StaveNetworkError } from "./errors.ts";
export {
  type ModelTypesOptions,
  modelTypesSource,
  readModelDownload,
} from "./model_types.ts";
export type * from "./types.ts";
export {
  type Answers,
  API_VERSION,
  type ErrorBody,
  type ErrorCode,
  type ErrorCodes,
  type FormReceipt,
  type FormSubmission,
  type Item,
  type OperationName,
  OPERATIONS,
  type Page,
  type Queries,
  type SearchHit,
  type SearchResponse,
  type SuggestResponse,
  type SyncResponse,
} from "./api.gen.ts";
