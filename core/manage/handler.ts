// What a Management API handler receives and answers, typed from its operation's declaration.
import type { z } from "zod";
import type { CredentialActor } from "../access/actor.ts";
import type { Authority } from "../access/authority.ts";
import type { CredentialRecord } from "../credentials/credential_store.ts";
import type { ActorSnapshot } from "../entries/actor_snapshot.ts";
import type { IncomingFile, StagedFile } from "../media/upload.ts";
import type { Services } from "../services.ts";
import type { SiteRecord } from "../sites/site_store.ts";
import type {
  AnyOperation,
  CamelCase,
  DeclaredOperation,
} from "./contract/mod.ts";

/** Everything a handler may use: the site and authority come from the credential, never the request. */
export interface ManageContext {
  services: Services;
  site: SiteRecord;
  credential: CredentialRecord;
  actor: CredentialActor;
  /** The authority re-read for this request (creator's permissions narrowed by the credential). */
  authority: Authority;
  /** The credential as commands name it in workflow events and audit entries, read with it. */
  snapshot?: ActorSnapshot;
  /**
   * For a keyed write: the digest naming this key (`sha256Hex(JSON.stringify(["manage",
   * siteId, credentialId, key]))`). A `prove` command stores it with its effect, in the same
   * transaction, so a retry after a lost answer can find what was written.
   */
  keyDigest: string | null;
}

/** The parsed input of an operation. */
export interface OperationInput<O extends AnyOperation> {
  params: z.output<O["params"]>;
  query: z.output<O["query"]>;
  body: O["body"] extends z.ZodType ? z.output<O["body"]> : undefined;
  /**
   * The `file` part of a multipart operation (`multipart: true`), written to storage while the
   * body arrived (a handler passes it to the media service, which takes the object over);
   * absent otherwise.
   */
  file?: IncomingFile | StagedFile;
  /** The raw body of a `binary` operation; absent otherwise. */
  bytes?: Uint8Array;
}

/** A successful answer; refusals are thrown with `refuse()` and never stored. */
export interface OperationAnswer<O extends AnyOperation> {
  body: z.input<O["answer"]>;
  headers?: Record<string, string>;
  /** Overrides the operation's status (an upload that reuses an existing file answers 200). */
  status?: 200 | 201;
}

/** The handler of one operation. */
export interface OperationHandler<O extends AnyOperation> {
  /** Runs the command; throws `HttpError` (via `refuse()`) for refusals. */
  run(
    ctx: ManageContext,
    input: OperationInput<O>,
  ): Promise<OperationAnswer<O>>;
  /**
   * Runs before a stored first answer is replayed: a replay that a new run would now refuse is
   * refused (throws via `refuse()`), never answered from the past.
   */
  beforeReplay?(ctx: ManageContext, input: OperationInput<O>): Promise<void>;
  /**
   * Only for `settle: "prove"`: the answer of a first run whose effect was written but whose
   * answer was lost, found by `ctx.keyDigest`; null when nothing was written (it runs again).
   */
  prove?(
    ctx: ManageContext,
    input: OperationInput<O>,
  ): Promise<OperationAnswer<O> | null>;
}

/** Types a handler by its operation; the operation itself is bound by name in `api.ts`. */
export function defineHandler<O extends AnyOperation>(
  _operation: O,
  handler: OperationHandler<O>,
): OperationHandler<O> {
  return handler;
}

/** One handler per declared operation, keyed by the camel-case operation name. */
export type HandlerMap = {
  [O in DeclaredOperation as CamelCase<O["name"]>]: OperationHandler<O>;
};
