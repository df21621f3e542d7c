// Test-only check that every answer of the public read API and the Management API is what their
// OpenAPI documents say: the status is one the operation lists, and a JSON body matches its schema.
// The test task turns it on (STAVE_CHECK_ANSWERS=1); a mismatch becomes a 500 no test can miss.
import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { AppEnv } from "../web/env.ts";
import type { LogEntry } from "../services.ts";
import type { Json } from "./components.ts";

/** The environment variable that turns the check on; nothing in a deployment sets it. */
export const ANSWER_CHECK_ENV = "STAVE_CHECK_ANSWERS";

/** The error code of an answer its document does not describe. */
export const ANSWER_CONTRACT_VIOLATION = "answer_contract_violation";

/**
 * Whether `env` turns the check on: `STAVE_CHECK_ANSWERS=1`, unless the process says outright
 * that it is a production deployment (`ENVIRONMENT=production`), where it never runs.
 */
export function answerCheckOn(env: (name: string) => string | undefined) {
  return env(ANSWER_CHECK_ENV) === "1" && env("ENVIRONMENT") !== "production";
}

/** One OpenAPI document and the path prefix its `servers` URL names. */
export interface CheckedDocument {
  /** Where the document's paths start, e.g. `/v1`. */
  base: string;
  document: Json;
}

interface Operation {
  label: string;
  /** Which document, and where the operation's responses sit in it (a JSON pointer). */
  document: number;
  pointer: string;
  responses: Record<string, Json>;
}

type Validate = ((data: unknown) => boolean) & {
  errors?: { instancePath: string; message?: string }[] | null;
};

/**
 * Checks the answers of the routes the documents describe. Which operation answered comes from
 * the route pattern Hono matched (`/v1/:model/:slug` is `/{model}/{slug}`), not from the request
 * path: `/v1/_comments` is its own route and never passes for a model list. Skipped by rule:
 * routes no document describes (pages, files, `/v1/_comments`, the MCP endpoint), methods the
 * document does not list for a path (the router's 405), CORS preflights, HEAD and 304 bodies,
 * statuses the document lists without a body, and bodies of a documented non-JSON type (the
 * plain-text internal error). A body of a type the status does not list is a violation.
 */
export function answerCheck(
  documents: CheckedDocument[],
  log: (entry: LogEntry) => void,
): MiddlewareHandler<AppEnv> {
  const operations = new Map<string, Operation>();
  for (const [index, { base, document }] of documents.entries()) {
    const paths = document.paths as Record<string, Record<string, Json>>;
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const pattern = base + path.replace(/\{([^}]+)\}/g, ":$1");
        operations.set(`${method.toUpperCase()} ${pattern}`, {
          label: `${method.toUpperCase()} ${base}${path}`,
          document: index,
          pointer: `#/paths/${escape(path)}/${method}/responses`,
          responses: operation.responses as Record<string, Json>,
        });
      }
    }
  }
  let validators: Promise<(pointer: string, index: number) => Validate>;
  const validatorOf = (pointer: string, index: number) => {
    validators ??= compileValidators(documents.map((d) => d.document));
    return validators.then((of) => of(pointer, index));
  };
  return async function checkAnswer(c, next) {
    await next();
    const method = c.req.method === "HEAD" ? "GET" : c.req.method;
    if (method === "OPTIONS") return;
    // A read answered before routing (core/public/front_reads.ts) names the route it stands for.
    const key = `${method} ${c.get("frontRoute") ?? routePath(c)}`;
    const operation = operations.get(key);
    if (!operation) return;
    const status = String(c.res.status);
    const response = operation.responses[status];
    if (!response) {
      return violate(c, log, operation, status, "the status is not documented");
    }
    if (c.req.method === "HEAD" || c.res.status === 304) return;
    const content = response.content as Record<string, Json> | undefined;
    // A status documented without a body (a 204, a redirect) says nothing to check.
    if (!content) return;
    const type = c.res.headers.get("content-type") ?? "";
    const media = type.split(";")[0].trim().toLowerCase();
    if (!(media in content)) {
      return violate(
        c,
        log,
        operation,
        status,
        `the document lists ${
          Object.keys(content).join(", ")
        }, the answer is "${type}"`,
      );
    }
    // Only JSON bodies have schemas worth checking; a documented text or file body passes.
    if (media !== "application/json" || !content[media].schema) return;
    const text = await c.res.clone().text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return violate(c, log, operation, status, "the body is not JSON");
    }
    const validate = await validatorOf(
      `${operation.pointer}/${status}/content/application~1json/schema`,
      operation.document,
    );
    if (!validate(body)) {
      const error = validate.errors?.[0];
      return violate(
        c,
        log,
        operation,
        status,
        `${error?.instancePath || "/"} ${error?.message ?? "does not match"}`,
      );
    }
  };
}

function escape(path: string): string {
  return path.replaceAll("~", "~0").replaceAll("/", "~1");
}

function violate(
  c: Context<AppEnv>,
  log: (entry: LogEntry) => void,
  operation: Operation,
  status: string,
  problem: string,
): void {
  const message =
    `${operation.label} answered ${status} outside its OpenAPI document: ${problem}`;
  log({ level: "error", msg: ANSWER_CONTRACT_VIOLATION, detail: message });
  // Also on stderr: a test that reads the 500 as some other failure still shows why.
  console.error(`${ANSWER_CONTRACT_VIOLATION}: ${message}`);
  c.res = undefined;
  c.res = new Response(
    JSON.stringify({
      error: {
        code: ANSWER_CONTRACT_VIOLATION,
        message,
        path: c.req.path,
        status: Number(status),
      },
    }),
    { status: 500, headers: { "content-type": "application/json" } },
  );
}

/**
 * Ajv with its JSON Schema 2020-12 draft: OpenAPI 3.1's schema objects are 2020-12, so `type`
 * lists, `const` and `$ref` beside other keywords mean what the document's readers take them to
 * mean. ajv-formats checks `uuid`, `date-time` and `uri` too: a wrong format is a wrong answer.
 * Loaded on first use, so a process without the check never loads either.
 */
async function compileValidators(
  documents: Json[],
): Promise<(pointer: string, index: number) => Validate> {
  const { Ajv2020 } = await import("ajv/dist/2020.js");
  const { default: addFormats } = await import("ajv-formats");
  // `example` and `x-…` sit inside OpenAPI schemas; they annotate and never validate.
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  (addFormats as unknown as (a: typeof ajv) => void)(ajv);
  documents.forEach((document, index) => {
    ajv.addSchema(
      document as object,
      `openapi-${index}.json`,
      undefined,
      false,
    );
  });
  const cache = new Map<string, Validate>();
  return (pointer, index) => {
    const ref = `openapi-${index}.json${pointer}`;
    let validate = cache.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref }) as Validate;
      cache.set(ref, validate);
    }
    return validate;
  };
}
