// POST /api/manage/mcp: the remote MCP tool endpoint, one JSON-RPC message per POST and one JSON answer (spec 2 part 4.5).
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { scopeHeld } from "../../access/scopes.ts";
import { RateWindow } from "../../kv/rate_window.ts";
import type { Services } from "../../services.ts";
import type { AppEnv } from "../../web/env.ts";
import { handleError, HttpError, refuse } from "../../web/errors.ts";
import { authenticate } from "../authenticate.ts";
import {
  type AnyOperation,
  CONTRACT_VERSION,
  OPERATIONS,
} from "../contract/mod.ts";
import { callTool, type Dispatch, type ToolAnswer } from "./call.ts";
import { pluginToolEntries } from "./plugin_calls.ts";
import {
  INVALID_PARAMS,
  METHOD_NOT_FOUND,
  readMessage,
  type RequestId,
  result,
  rpcError,
} from "./jsonrpc.ts";
import {
  argumentSchemaOf,
  buildTools,
  listedTool,
  type ManageTool,
} from "./tools.ts";

/** What `initialize` tells an agent once, instead of repeating it in every tool. */
export const INSTRUCTIONS =
  'Tools are the Management API\'s operations for the site of your credential. Every call answers structuredContent { status, idempotency_key?, body }: status is the HTTP status, body the answer or { error: { code, message } }; isError is true from status 400. Argument objects are closed: a name a schema does not list is refused. Writes take an optional idempotency_key (1 to 128 visible ASCII characters): send the returned one again to retry safely. A schema described as "Same shape as X" has its shape written out at X, in the tool X names first if it names one. Start with get_site and list_models; models are named by id or by api key (e.g. "posts"). To publish what is there now, call publish_entry with expected_current_version_id and expected_workflow_revision set to "current".';

/** Protocol versions this endpoint speaks, newest first (spec 2 part 4.5). */
export const PROTOCOL_VERSIONS = ["2025-06-18", "2025-03-26"] as const;
/** The header a client names its protocol version in after `initialize`. */
export const PROTOCOL_HEADER = "mcp-protocol-version";
/** Largest message: an 8 MiB upload in base64 plus its JSON around it. */
export const MCP_BODY_LIMIT = 12 * 1024 * 1024;

/** Options of {@link createMcpEndpoint}. */
export interface McpEndpointOptions {
  /** Runs a tool's Management API request through the service's own app. */
  dispatch: Dispatch;
  /** Operations offered as tools; defaults to the whole contract. */
  operations?: readonly AnyOperation[];
}

/** The tools of a contract, and the same tools by name. */
interface ToolSet {
  tools: ManageTool[];
  byName: Map<string, ManageTool>;
}

// Turning the contract into JSON schemas costs 30-90 ms of CPU. It is done on the first message,
// once per contract and process: not at start-up, and not again for every app a process builds
// (each test builds its own; it was 3.5% of a test run's CPU).
const toolSets = new WeakMap<readonly AnyOperation[], ToolSet>();

function toolSetOf(operations: readonly AnyOperation[]): ToolSet {
  let set = toolSets.get(operations);
  if (!set) {
    const tools = buildTools(operations);
    set = { tools, byName: new Map(tools.map((t) => [t.name, t])) };
    toolSets.set(operations, set);
  }
  return set;
}

/** Creates the endpoint; mount it with `app.route("/api/manage/mcp", …)`. */
export function createMcpEndpoint(
  services: Services,
  options: McpEndpointOptions,
): Hono<AppEnv> {
  const endpoint = new Hono<AppEnv>();
  const operations = options.operations ?? OPERATIONS;
  const rate = new RateWindow(services.kv, { clock: services.clock });
  const origin = new URL(services.config.publicUrl).origin;
  endpoint.post(
    "/",
    bodyLimit({
      maxSize: MCP_BODY_LIMIT,
      onError: () => {
        throw new HttpError(
          413,
          "payload_too_large",
          "The message is larger than this endpoint accepts",
        );
      },
    }),
    async function mcpMessage(c) {
      checkOrigin(c.req.header("origin"), origin);
      const text = await c.req.text();
      const message = readMessage(text);
      if (message.kind === "invalid") {
        return c.json(rpcError(message.id, message.code, message.message), 400);
      }
      const initializing = message.kind === "request" &&
        message.method === "initialize";
      if (!initializing) checkProtocolHeader(c.req.header(PROTOCOL_HEADER));
      const call = message.kind === "request" &&
        message.method === "tools/call";
      // A tool call is counted once, as the Management API request it makes.
      const caller = await authenticate(services, {
        headers: c.req.raw.headers,
        scope: "content:read",
        rate: call ? null : rate,
      }).catch((error) => {
        // An agent given only the address learns here where to sign the person in.
        if (error instanceof HttpError && error.status === 401) {
          throw new HttpError(401, error.code, error.message, error.details, {
            "WWW-Authenticate":
              `Bearer realm="manage", resource_metadata="${origin}/.well-known/oauth-protected-resource/api/manage/mcp"`,
          });
        }
        throw error;
      });
      if (message.kind !== "request") return c.body(null, 202);
      const { tools, byName } = toolSetOf(operations);
      const allowed = tools.filter((t) =>
        scopeHeld(caller.authority.scopes, t.operation.scope)
      );
      const answer = await answerRequest(message, {
        allowed,
        byName,
        dispatch: options.dispatch,
        origin,
        authorization: c.req.header("authorization")!,
      });
      return c.json(answer);
    },
  );
  endpoint.on(["GET", "DELETE"], "/", function noStream() {
    refuse(
      405,
      "method_not_allowed",
      "This endpoint has no session or stream: POST one JSON-RPC message",
      {},
      { Allow: "POST" },
    );
  });
  endpoint.all("/", function otherMethod() {
    refuse(
      405,
      "method_not_allowed",
      "POST one JSON-RPC message",
      {},
      { Allow: "POST" },
    );
  });
  endpoint.onError((error, c) => handleError(error, c as Context<AppEnv>));
  return endpoint;
}

/** A browser page on another origin may not drive the endpoint; a missing Origin is a non-browser client. */
function checkOrigin(sent: string | undefined, origin: string): void {
  if (sent === undefined) return;
  let parsed: string | null = null;
  try {
    parsed = new URL(sent).origin;
  } catch { /* "null" and other non-URLs */ }
  if (parsed !== origin) {
    refuse(
      403,
      "forbidden",
      "Requests from a browser page on another origin are refused",
    );
  }
}

/** After `initialize` a client names the negotiated version; another one is refused. */
function checkProtocolHeader(sent: string | undefined): void {
  if (sent === undefined) return;
  if (!(PROTOCOL_VERSIONS as readonly string[]).includes(sent.trim())) {
    refuse(
      400,
      "invalid_request",
      `Unsupported MCP-Protocol-Version "${sent.slice(0, 40)}": expected ${
        PROTOCOL_VERSIONS.join(" or ")
      }`,
    );
  }
}

interface AnswerContext {
  allowed: ManageTool[];
  byName: Map<string, ManageTool>;
  dispatch: Dispatch;
  origin: string;
  authorization: string;
}

function callOptions(ctx: AnswerContext) {
  return {
    dispatch: ctx.dispatch,
    origin: ctx.origin,
    authorization: ctx.authorization,
  };
}

// The caller's plugin tools, read through its own listing (empty without `plugins:use`).
function pluginEntries(ctx: AnswerContext) {
  return ctx.allowed.some((t) => t.name === "list_plugins")
    ? pluginToolEntries(callOptions(ctx), ctx.byName)
    : Promise.resolve([]);
}

async function answerRequest(
  message: { id: RequestId; method: string; params: Record<string, unknown> },
  ctx: AnswerContext,
): Promise<unknown> {
  const { id, params } = message;
  switch (message.method) {
    case "initialize":
      return result(id, {
        protocolVersion: negotiate(params.protocolVersion),
        capabilities: { tools: { listChanged: false } },
        serverInfo: {
          name: "stave-manage",
          title: "Stave Management API",
          version: CONTRACT_VERSION,
        },
        instructions: INSTRUCTIONS,
      });
    case "ping":
      return result(id, {});
    case "tools/list":
      return result(id, {
        tools: [
          ...ctx.allowed.map(listedTool),
          ...(await pluginEntries(ctx)).map((e) => e.listed),
        ],
      });
    case "tools/call":
      return await answerCall(id, params, ctx);
    default:
      return rpcError(
        id,
        METHOD_NOT_FOUND,
        `Method not found: "${message.method.slice(0, 80)}"`,
      );
  }
}

/** The client's version when this endpoint speaks it, else the newest this endpoint speaks; never an unknown one. */
export function negotiate(requested: unknown): string {
  return typeof requested === "string" &&
      (PROTOCOL_VERSIONS as readonly string[]).includes(requested)
    ? requested
    : PROTOCOL_VERSIONS[0];
}

async function answerCall(
  id: RequestId,
  params: Record<string, unknown>,
  ctx: AnswerContext,
): Promise<unknown> {
  const name = params.name;
  if (typeof name !== "string") {
    return rpcError(
      id,
      INVALID_PARAMS,
      'Invalid params: "name" must be a string',
    );
  }
  const tool = ctx.byName.get(name);
  if (!tool || !ctx.allowed.includes(tool)) {
    // Plugin tools are named `plugin_…` and read from the caller's listing now.
    const entry = name.startsWith("plugin_")
      ? (await pluginEntries(ctx)).find((e) => e.listed.name === name)
      : undefined;
    if (!entry) {
      return rpcError(
        id,
        INVALID_PARAMS,
        `Unknown tool: "${name.slice(0, 80)}"`,
      );
    }
    const raw = params.arguments ?? {};
    const bound = typeof raw === "object" && raw !== null && !Array.isArray(raw)
      ? entry.bind(raw as Record<string, unknown>)
      : { ok: false as const, message: "arguments: expected an object" };
    if (!bound.ok) {
      return argumentRefusal(id, name, bound.message, []);
    }
    return toolResult(
      id,
      await callTool(bound.tool, bound.args, callOptions(ctx)),
    );
  }
  const raw = params.arguments ?? {};
  const parsed = argumentSchemaOf(tool.operation).safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.flatMap((issue) =>
      issue.code === "unrecognized_keys"
        ? issue.keys.map((key) => ({
          path: [...issue.path, key].join("."),
          message: "unknown argument",
        }))
        : [{ path: issue.path.join("."), message: issue.message }]
    );
    return argumentRefusal(
      id,
      name,
      `${issues[0].path || "arguments"}: ${issues[0].message}`,
      issues,
    );
  }
  // Arguments are sent as given (the route parses them itself); zod only vetted them.
  return toolResult(
    id,
    await callTool(tool, raw as Record<string, unknown>, callOptions(ctx)),
  );
}

/**
 * Arguments that do not fit the tool's schema: a tool result with `isError`, as current MCP
 * guidance asks, so the agent reads which argument to correct and calls again. Nothing was
 * sent to the API. Unknown tools and malformed requests stay JSON-RPC errors.
 */
function argumentRefusal(
  id: RequestId,
  name: string,
  detail: string,
  issues: { path: string; message: string }[],
) {
  return toolResult(id, {
    status: 400,
    body: {
      error: {
        code: "input_invalid",
        message:
          `Invalid arguments of "${name}": ${detail}. Correct that argument (the tool's inputSchema lists them) and call again`,
        issues,
      },
    },
  });
}

// A tool call's answer: the route's status and body, as text and as structured content.
function toolResult(id: RequestId, answer: ToolAnswer) {
  return result(id, {
    content: [{ type: "text", text: JSON.stringify(answer) }],
    structuredContent: answer,
    isError: answer.status >= 400,
  });
}
