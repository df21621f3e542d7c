// Making a management credential from this machine while the service runs: the running service
// holds the embedded store's lock, so `deno task svc credential` asks it instead of opening the
// store. Whoever can read the data folder may do this, and only they: at each start the service
// writes a fresh random secret to a file in DATA_DIR readable by its owner alone (0600), keeps
// only the secret's digest, and compares what a request sends in constant time.
import { z } from "zod";
import { randomToken, secretsEqual, sha256Hex } from "../auth/secrets.ts";
import type { Services } from "../services.ts";
import { findSiteByDomain } from "../sites/site_store.ts";
import { createCredential } from "./credentials.ts";

/** The path the running service answers for local commands; never reachable without the secret. */
export const LOCAL_CREDENTIAL_PATH = "/_local/credentials";
/** The file in DATA_DIR that tells a local command where the service listens and its secret. */
export const LOCAL_CONTROL_FILE = "local-control.json";
const MAX_BODY_BYTES = 16_384;

export const localCredentialRequest = z.strictObject({
  domain: z.string().min(1).max(253),
  admin_email: z.string().min(1).max(320),
  name: z.string(),
  scopes: z.array(z.string()).max(64),
  models: z.array(z.string()).max(1000).nullable(),
});
export type LocalCredentialRequest = z.infer<typeof localCredentialRequest>;

/** What `svc credential` prints (stdout) or the one line it prints on stderr, with its exit code. */
export type LocalCredentialResult =
  | { ok: true; output: Record<string, unknown> }
  | { ok: false; message: string };

/** Creates the credential on `services`: the one logic behind the command and the local route. */
export async function makeLocalCredential(
  services: Services,
  input: LocalCredentialRequest,
): Promise<LocalCredentialResult> {
  const site = await findSiteByDomain(services.db, input.domain.toLowerCase());
  const person = await services.db.selectFrom("users").select("id")
    .where("email", "=", input.admin_email.trim().toLowerCase())
    .executeTakeFirst();
  if (!site || !person) {
    return {
      ok: false,
      message:
        "Credential refused: no such site or person. Nothing was changed.",
    };
  }
  const created = await createCredential({
    ...services,
    siteId: site.id,
    personId: person.id,
  }, { name: input.name, scopes: input.scopes, models: input.models });
  if (!created.ok) {
    return {
      ok: false,
      message: `Credential refused (${created.code}): ${
        JSON.stringify(created)
      }. Nothing was changed.`,
    };
  }
  const { id, name, scopes, models } = created.credential;
  return {
    ok: true,
    output: {
      management_credential: {
        id,
        name,
        scopes,
        models,
        secret: created.secret,
      },
    },
  };
}

/** Where a local command reaches the running service. */
export interface LocalControl {
  origin: string;
  secret: string;
}

/**
 * Writes a fresh secret and the service's address to `dataDir/local-control.json` (owner-only)
 * and answers the request handler that accepts it, plus a remover for shutdown. Answers null
 * when the folder cannot be written (a read-only deployment): local commands then say to stop
 * the service or use the admin.
 */
export async function openLocalControl(
  services: Services,
  dataDir: string,
  origin: string,
): Promise<
  {
    handle: (request: Request) => Promise<Response>;
    remove: () => Promise<void>;
  } | null
> {
  const secret = randomToken("stave_local_");
  const digest = await sha256Hex(secret);
  const path = `${dataDir.replace(/\/+$/, "")}/${LOCAL_CONTROL_FILE}`;
  try {
    // Remove first: writeTextFile's mode applies only to a file it creates.
    await Deno.remove(path).catch(() => {});
    await Deno.writeTextFile(
      path,
      JSON.stringify({ origin, secret } satisfies LocalControl),
      { mode: 0o600, createNew: true },
    );
  } catch {
    return null;
  }
  return {
    handle: (request) => handleLocalCredential(services, digest, request),
    // Several processes may share a DATA_DIR on PostgreSQL: remove the file only while it is ours.
    remove: async () => {
      const current = await readLocalControl(dataDir);
      if (current?.secret === secret) await Deno.remove(path).catch(() => {});
    },
  };
}

const refusal = (status: number, code: string, message: string) =>
  Response.json({ error: { code, message } }, { status });

async function handleLocalCredential(
  services: Services,
  digest: string,
  request: Request,
): Promise<Response> {
  if (request.method !== "POST") {
    return refusal(405, "method_not_allowed", "Use POST");
  }
  const sent = /^Bearer (\S+)$/.exec(
    request.headers.get("authorization") ?? "",
  )?.[1];
  // Compared as digests: the service keeps no copy of the secret itself.
  if (!sent || !(await secretsEqual(await sha256Hex(sent), digest))) {
    return refusal(401, "unauthenticated", "Missing or wrong local secret");
  }
  const text = await request.text();
  if (new TextEncoder().encode(text).length > MAX_BODY_BYTES) {
    return refusal(413, "payload_too_large", "Body too large");
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return refusal(400, "invalid_json", "Body is not JSON");
  }
  const parsed = localCredentialRequest.safeParse(body);
  if (!parsed.success) {
    return refusal(
      400,
      "invalid_request",
      parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`)
        .join("; "),
    );
  }
  const result = await makeLocalCredential(services, parsed.data);
  return result.ok
    ? Response.json(result.output, { status: 201 })
    : refusal(422, "refused", result.message);
}

/** Reads the running service's local-control file, or null when there is none. */
export async function readLocalControl(
  dataDir: string,
): Promise<LocalControl | null> {
  try {
    const parsed = JSON.parse(
      await Deno.readTextFile(
        `${dataDir.replace(/\/+$/, "")}/${LOCAL_CONTROL_FILE}`,
      ),
    );
    return typeof parsed?.origin === "string" &&
        typeof parsed?.secret === "string"
      ? { origin: parsed.origin, secret: parsed.secret }
      : null;
  } catch {
    return null;
  }
}
