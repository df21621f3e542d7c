// Builds the Management API v1 as a Hono sub-app by iterating the contract and binding each operation to its handler by name.
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { IdempotencyStore } from "../kv/idempotency_store.ts";
import { RateWindow } from "../kv/rate_window.ts";
import type { Services } from "../services.ts";
import type { AppEnv } from "../web/env.ts";
import { handleError, HttpError } from "../web/errors.ts";
import { authenticate } from "./authenticate.ts";
import {
  type AnyOperation,
  camelCase,
  DEFAULT_BODY_LIMIT,
  honoPattern,
  OPERATIONS,
} from "./contract/mod.ts";
import type {
  HandlerMap,
  ManageContext,
  OperationAnswer,
  OperationHandler,
  OperationInput,
} from "./handler.ts";
import { HANDLERS } from "./handlers/mod.ts";
import {
  keyDigestOf,
  requireIdempotencyKey,
  runKeyed,
  type SentAnswer,
} from "./idempotency.ts";
import { readStreamedMultipart } from "./streamed_multipart.ts";
import { streamedBodyLimit } from "../web/app.ts";
import type { MediaStorage } from "../media/storage.ts";
import { keylessMediaContext } from "../media/storage_of.ts";
import { apiUploadLimit, type StagedFile, stageFile } from "../media/upload.ts";
import { resolveModelKeys } from "./model_keys.ts";
import { requireContentType } from "../web/json_body.ts";
import {
  decodeBody,
  parseBody,
  parseParams,
  parseQuery,
  queryObject,
  refuseSiteNaming,
} from "./input.ts";

/** Options of {@link createManagementApi}. */
export interface ManagementApiOptions {
  /** The handlers to bind; tests wrap the real ones to hold a request open. */
  handlers?: HandlerMap;
  /** The operations to mount; defaults to the whole contract. */
  operations?: readonly AnyOperation[];
}

/** Creates the Management API; mount it with `app.route("/api/manage/v1", createManagementApi(services))`. */
export function createManagementApi(
  services: Services,
  options: ManagementApiOptions = {},
): Hono<AppEnv> {
  const api = new Hono<AppEnv>();
  const idempotency = new IdempotencyStore(services.kv, {
    clock: services.clock,
  });
  const rate = new RateWindow(services.kv, { clock: services.clock });
  const handlers = (options.handlers ?? HANDLERS) as unknown as Record<
    string,
    OperationHandler<AnyOperation> | undefined
  >;
  const operations = options.operations ?? OPERATIONS;
  for (const operation of operations) {
    const handler = bindHandler(operation, handlers);
    api.on(
      operation.method,
      honoPattern(operation.path),
      // An upload's body streams to storage: its limit counts bytes as they pass, never holding them.
      operation.multipart
        ? streamedBodyLimit(
          operation.bodyLimit ?? DEFAULT_BODY_LIMIT,
          operation.tooLargeCode,
        )
        : bodyLimit({
          maxSize: operation.bodyLimit ?? DEFAULT_BODY_LIMIT,
          onError: () => {
            throw new HttpError(
              413,
              operation.tooLargeCode ?? "payload_too_large",
              "Request body is larger than this route accepts",
              { limit_bytes: operation.bodyLimit ?? DEFAULT_BODY_LIMIT },
            );
          },
        }),
      async function manageOperation(c) {
        const answer = await serve(c, {
          services,
          operation,
          handler,
          rate,
          idempotency,
        });
        return c.body(answer.body, answer.status as 200, answer.headers);
      },
    );
  }
  api.all("*", function unknownRoute(c) {
    const allowed = operations.filter((o) =>
      pathRegExp(o.path).test(c.req.path.slice(basePrefix(c).length) || "/")
    ).map((o) => o.method);
    if (allowed.length > 0) {
      throw new HttpError(
        405,
        "method_not_allowed",
        `Method "${c.req.method}" is not allowed here`,
        {},
        { Allow: [...new Set(allowed)].join(", ") },
      );
    }
    throw new HttpError(404, "not_found", "Not found");
  });
  api.onError((error, c) => handleError(error, c as Context<AppEnv>));
  return api;
}

/** The handler export named after the operation; a missing one fails at start-up, never per request. */
function bindHandler(
  operation: AnyOperation,
  handlers: Record<string, OperationHandler<AnyOperation> | undefined>,
): OperationHandler<AnyOperation> {
  const name = camelCase(operation.name);
  const handler = handlers[name];
  if (!handler || typeof handler.run !== "function") {
    throw new Error(
      `Cannot mount operation "${operation.name}": expected "export const ${name}" in core/manage/handlers/`,
    );
  }
  if (operation.key?.settle === "prove" && !handler.prove) {
    throw new Error(
      `Cannot mount operation "${operation.name}": settle "prove" needs a prove() in handler "${name}"`,
    );
  }
  return handler;
}

interface ServeOptions {
  services: Services;
  operation: AnyOperation;
  handler: OperationHandler<AnyOperation>;
  rate: RateWindow;
  idempotency: IdempotencyStore;
}

/** The common rules of every operation (spec 2 part 4.1), then the handler. */
async function serve(
  c: Context<AppEnv>,
  options: ServeOptions,
): Promise<SentAnswer> {
  const { services, operation } = options;
  const caller = await authenticate(services, {
    headers: c.req.raw.headers,
    scope: operation.scope,
    rate: options.rate,
    // Set on the context so refusals thrown later carry them too.
    onRate: (headers) => {
      for (const [name, value] of Object.entries(headers)) {
        c.header(name, value);
      }
    },
  });
  const url = new URL(c.req.url);
  const rawQuery = queryObject(url);
  refuseSiteNaming("query", rawQuery);
  if (!operation.multipart) {
    const rawBody = new Uint8Array(await c.req.arrayBuffer());
    if (operation.binary) {
      requireContentType(c.req.raw.headers, ["application/octet-stream"]);
      return await serveParsed(c, options, caller, {
        rawQuery,
        rawBody,
        decoded: undefined,
        bytes: rawBody,
      });
    }
    return await serveParsed(c, options, caller, {
      rawQuery,
      rawBody,
      decoded: decodeBody(operation, rawBody, c.req.raw.headers),
    });
  }
  requireContentType(c.req.raw.headers, ["multipart/form-data"]);
  // The file goes to storage while the body arrives; its digest then completes the key's
  // fingerprint. Whatever does not take the staged object (a replay, a refusal before the
  // handler looked at the file) removes it here.
  const ctx = keylessMediaContext(services, caller.site.id);
  const form = await readStreamedMultipart(
    c.req.raw.body,
    c.req.header("content-type") ?? "",
    {
      stage: (stream) =>
        stageFile(
          ctx,
          stream,
          apiUploadLimit(services.config.mediaRequestBodyLimitBytes),
        ),
      discard: (file) => discardStaged(ctx.storage, file),
    },
  );
  try {
    return await serveParsed(c, options, caller, {
      rawQuery,
      // The key's fingerprint is what the parts say, not the boundary a client happened to pick.
      rawBody: new TextEncoder().encode(form.fingerprint),
      decoded: form.fields,
      file: form.file,
    });
  } finally {
    await discardStaged(ctx.storage, form.file);
  }
}

/** A staged upload's object, removed unless the handler took it over. */
async function discardStaged(
  storage: MediaStorage,
  file: StagedFile,
): Promise<void> {
  if (file.taken || !file.staged.ok) return;
  file.taken = true;
  await storage.delete(file.staged.written.key).catch(() => {});
}

/** What a request's body was read into. */
interface ParsedRequest {
  rawQuery: Record<string, string>;
  /** The bytes the idempotency fingerprint is taken of. */
  rawBody: Uint8Array;
  decoded: unknown;
  file?: OperationInput<AnyOperation>["file"];
  bytes?: Uint8Array;
}

/** The rest of an operation once its body is read: names, parameters, the key, the handler. */
async function serveParsed(
  c: Context<AppEnv>,
  options: ServeOptions,
  caller: Awaited<ReturnType<typeof authenticate>>,
  parsed: ParsedRequest,
): Promise<SentAnswer> {
  const { services, operation, handler } = options;
  const { rawQuery, rawBody, decoded, file, bytes } = parsed;
  const url = new URL(c.req.url);
  refuseSiteNaming("body", decoded);
  await resolveModelKeys(services.db, caller.site.id, operation, {
    query: rawQuery,
    body: decoded,
  });
  const input: OperationInput<AnyOperation> = {
    params: parseParams(operation, c.req.param() as Record<string, string>),
    query: parseQuery(operation, rawQuery),
    body: parseBody(operation, decoded),
    file,
    bytes,
  };
  const run = async (ctx: ManageContext) =>
    toSent(operation, await handler.run(ctx, input));
  if (operation.key === null) {
    return await run({ services, ...caller, keyDigest: null });
  }
  const key = requireIdempotencyKey(c.req.raw.headers);
  const scope = ["manage", caller.site.id, caller.credential.id];
  const ctx: ManageContext = {
    services,
    ...caller,
    keyDigest: await keyDigestOf(scope, key),
  };
  return await runKeyed({
    store: options.idempotency,
    rule: operation.key,
    scope,
    key,
    method: operation.method,
    target: url.pathname + url.search,
    rawBody,
    run: () => run(ctx),
    beforeReplay: handler.beforeReplay
      ? () => handler.beforeReplay!(ctx, input)
      : undefined,
    prove: handler.prove
      ? async () => {
        const proved = await handler.prove!(ctx, input);
        return proved ? toSent(operation, proved) : null;
      }
      : undefined,
    log: services.log,
  });
}

/** Checks an answer against the contract (a mismatch is a bug: 500, key freed) and serialises it. */
function toSent(
  operation: AnyOperation,
  answer: OperationAnswer<AnyOperation>,
): SentAnswer {
  const checked = operation.answer.safeParse(answer.body);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new Error(
      `Operation "${operation.name}" answered outside its contract: ${
        issue.path.join(".")
      }: ${issue.message}`,
    );
  }
  return {
    status: answer.status ?? operation.status,
    headers: {
      ...answer.headers,
      "content-type": "application/json; charset=UTF-8",
    },
    body: JSON.stringify(answer.body),
  };
}

/** The part of the request path where this sub-app is mounted. */
function basePrefix(c: Context<AppEnv>): string {
  const routePath = c.req.routePath; // e.g. "/api/manage/v1/*"
  return routePath.endsWith("/*") ? routePath.slice(0, -2) : "";
}

function pathRegExp(path: string): RegExp {
  const source = path.split(/\{[A-Za-z][A-Za-z0-9_]*\}/).map((part) =>
    part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
  ).join("[^/]+");
  return new RegExp(`^${source}$`);
}
