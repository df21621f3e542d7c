// Who is calling and what they may do: the service bearer (`API_BEARER_TOKEN`), read tokens
// scoped by model (SHA-256 digests in `ACCESS_CONFIG`), or nobody. `ACCESS_CONFIG` is checked
// whole before the server starts; an invalid one refuses boot with the code that names why.
import type { Context } from "hono";
import { refuse } from "./errors.ts";
import {
  type AccessRule,
  type BackendSchema,
  type Operation,
  READ_OPERATIONS,
} from "./schema.ts";

/** One read token of `ACCESS_CONFIG`: only its digest is ever known here. */
export interface ReadToken {
  id: string;
  site_id: string;
  /** Lower-case hex SHA-256 of the secret. */
  digest: string;
  /** Model ids, or `["*"]` for every model and the API description. */
  models: string[];
  capabilities: ["read"];
}

/** The access configuration: version 1, one site, read tokens. */
export interface AccessConfig {
  version: 1;
  site_id: string;
  tokens: ReadToken[];
}

/** Why a configuration is refused: the code and each problem. */
export class AccessConfigError extends Error {
  constructor(readonly code: string, readonly problems: string[]) {
    super(`${code}: ${problems.join("; ")}`);
  }
}

const DIGEST = /^[0-9a-f]{64}$/;
const TOKEN_KEYS = new Set([
  "id",
  "site_id",
  "digest",
  "models",
  "capabilities",
]);

/**
 * Checks one configuration document (`code` names it in a refusal): version 1, this site,
 * every token naming this site, lower-case SHA-256 hex digests, known model scopes, read
 * capability only, no duplicate id or digest.
 */
export function parseAccessConfig(
  value: unknown,
  schema: BackendSchema,
  code: string,
): AccessConfig {
  const problems: string[] = [];
  const doc = value as Partial<AccessConfig> | null;
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) {
    throw new AccessConfigError(code, ["expected a JSON object"]);
  }
  for (const key of Object.keys(doc)) {
    if (!["version", "site_id", "tokens"].includes(key)) {
      problems.push(`unknown key "${key}"`);
    }
  }
  if (doc.version !== 1) problems.push("version must be 1");
  if (doc.site_id !== schema.site.id) problems.push("site_id is not this site");
  if (!Array.isArray(doc.tokens)) problems.push("tokens must be a list");
  const modelIds = new Set(schema.models.map((m) => m.id));
  const ids = new Set<string>();
  const digests = new Set<string>();
  (Array.isArray(doc.tokens) ? doc.tokens : []).forEach((token, i) => {
    const at = `tokens[${i}]`;
    if (!token || typeof token !== "object") {
      problems.push(`${at} must be an object`);
      return;
    }
    for (const key of Object.keys(token)) {
      if (!TOKEN_KEYS.has(key)) problems.push(`${at} has unknown key "${key}"`);
    }
    if (typeof token.id !== "string" || token.id.length === 0) {
      problems.push(`${at}.id must be a non-empty string`);
    } else if (ids.has(token.id)) problems.push(`${at}.id is a duplicate`);
    else ids.add(token.id);
    if (token.site_id !== schema.site.id) {
      problems.push(`${at}.site_id is not this site`);
    }
    if (typeof token.digest !== "string" || !DIGEST.test(token.digest)) {
      problems.push(`${at}.digest must be a lower-case SHA-256 hex digest`);
    } else if (digests.has(token.digest)) {
      problems.push(`${at}.digest is a duplicate`);
    } else digests.add(token.digest);
    if (
      !Array.isArray(token.models) || token.models.length === 0 ||
      !token.models.every((m) => m === "*" || modelIds.has(m))
    ) {
      problems.push(`${at}.models must name models of this backend or "*"`);
    }
    if (
      !Array.isArray(token.capabilities) || token.capabilities.length !== 1 ||
      token.capabilities[0] !== "read"
    ) {
      problems.push(`${at}.capabilities must be ["read"]: tokens never write`);
    }
  });
  if (problems.length > 0) throw new AccessConfigError(code, problems);
  return doc as AccessConfig;
}

/**
 * The configuration a start uses: the issued tokens the generator wrote
 * (access/read-tokens.json) united with the owner's own `ACCESS_CONFIG`, each checked first;
 * the same id in both is `access_token_id_conflict`, the same digest
 * `access_config_union_invalid`.
 */
export function unionAccessConfig(
  generated: unknown,
  owned: string | undefined,
  schema: BackendSchema,
): AccessConfig {
  const issued = parseAccessConfig(
    generated,
    schema,
    "generated_access_tokens_invalid",
  );
  if (owned === undefined || owned.trim() === "") return issued;
  let ownedValue: unknown;
  try {
    ownedValue = JSON.parse(owned);
  } catch {
    throw new AccessConfigError("owned_access_config_invalid", [
      "ACCESS_CONFIG is not JSON",
    ]);
  }
  const own = parseAccessConfig(
    ownedValue,
    schema,
    "owned_access_config_invalid",
  );
  const ids = new Set(issued.tokens.map((t) => t.id));
  const digests = new Set(issued.tokens.map((t) => t.digest));
  const sameId = own.tokens.filter((t) => ids.has(t.id));
  if (sameId.length > 0) {
    throw new AccessConfigError(
      "access_token_id_conflict",
      sameId.map((t) => `token id "${t.id}" is in both`),
    );
  }
  const sameDigest = own.tokens.filter((t) => digests.has(t.digest));
  if (sameDigest.length > 0) {
    throw new AccessConfigError(
      "access_config_union_invalid",
      sameDigest.map((t) => `token "${t.id}" repeats an issued digest`),
    );
  }
  return { ...issued, tokens: [...issued.tokens, ...own.tokens] };
}

/** Who a request comes from. */
export type Caller =
  | { kind: "anonymous" }
  | { kind: "service" }
  | { kind: "reader"; token: ReadToken };

async function sha256Hex(text: string): Promise<string> {
  const bytes = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  return Array.from(
    new Uint8Array(bytes),
    (b) => b.toString(16).padStart(2, "0"),
  )
    .join("");
}

/** Compares two strings in time that depends only on their lengths. */
function sameSecret(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  }
  return diff === 0;
}

/** Identifies callers from the `Authorization` header. */
export class Gate {
  readonly #byDigest: Map<string, ReadToken>;

  constructor(
    readonly config: AccessConfig,
    readonly serviceToken: string | null,
  ) {
    this.#byDigest = new Map(config.tokens.map((t) => [t.digest, t]));
  }

  /** The caller of a request; a bearer that matches nothing is 401. */
  async callerOf(c: Context): Promise<Caller> {
    const header = c.req.header("authorization");
    if (!header) return { kind: "anonymous" };
    const match = /^Bearer (\S+)$/.exec(header);
    if (!match) refuse(401, "unauthorized");
    const secret = match[1];
    if (this.serviceToken && sameSecret(secret, this.serviceToken)) {
      return { kind: "service" };
    }
    const token = this.#byDigest.get(await sha256Hex(secret));
    if (token) return { kind: "reader", token };
    refuse(401, "unauthorized");
  }

  /** True when `caller` may reach every model: the service, or a wildcard read token. */
  isWildcard(caller: Caller): boolean {
    return caller.kind === "service" ||
      (caller.kind === "reader" && caller.token.models.includes("*"));
  }

  /**
   * Refuses unless `caller` may run `op` on the model `modelId` under `rule`: 401 without
   * credentials, 403 when they do not reach, 503 `writes_unavailable` for a service write
   * while no service bearer is configured.
   */
  admit(
    caller: Caller,
    rule: AccessRule,
    op: Operation,
    modelId: string,
  ): void {
    const read = READ_OPERATIONS.has(op);
    if (rule.audience === "anonymous") return;
    if (caller.kind === "service") return;
    if (!read && rule.audience === "service" && this.serviceToken === null) {
      refuse(503, "writes_unavailable");
    }
    if (caller.kind === "anonymous") refuse(401, "unauthorized");
    // A read token reads the models it names; it never writes.
    const scoped = caller.token.models.includes("*") ||
      caller.token.models.includes(modelId);
    if (!read || !scoped) refuse(403, "forbidden");
  }
}
