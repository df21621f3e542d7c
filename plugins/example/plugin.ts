// A small example plugin: manifest, one-time activation codes, the hand-off, a launch page and one operation, using the SDK.
import { z } from "zod";
import {
  checkServiceUrl,
  PluginClient,
  type ServiceUrlPolicy,
} from "../sdk/mod.ts";
import { exampleManifest } from "./manifest.ts";

/** One installation as the plugin keeps it (tokens in memory: an example, not a store). */
export interface ExampleInstallation {
  installationId: string;
  siteId: string;
  serviceUrl: string;
  token: string;
}

/** Options of createExamplePlugin(). */
export interface ExamplePluginOptions {
  /** The origin the plugin is reached at (`PUBLIC_ORIGIN`). */
  origin: string;
  /** Operator secret for `/admin/activation-codes` (at least 16 characters). */
  adminSecret: string;
  /** Service base URLs allowed over plain HTTP (development only). */
  servicePolicy?: ServiceUrlPolicy;
  now?: () => number;
  /** Injected into the SDK client (tests). */
  fetch?: typeof fetch;
}

const CODE_TTL_MS = 15 * 60_000;

const handoffSchema = z.strictObject({
  kind: z.enum(["activate", "rotate"]),
  code: z.string().min(1).max(256),
  token: z.string().regex(/^svp_[A-Za-z0-9_-]{43}$/),
  installation_id: z.string().min(1).max(100),
  site_id: z.string().min(1).max(100),
  service_url: z.string().max(2048),
});

const envelopeSchema = z.strictObject({
  installation_id: z.string().min(1).max(100),
  invocation_id: z.string().min(1).max(100),
  code: z.string().min(1).max(256),
  expires_at: z.number().int(),
});

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  return Array.from(
    new Uint8Array(digest),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

function randomCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll(
    "/",
    "_",
  )
    .replace(/=+$/, "");
}

function timingSafeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  }
  return diff === 0;
}

function refuse(status: number, code: string, message: string): Response {
  return Response.json({ error: { code, message } }, { status });
}

/** The example plugin as a request handler plus the state a test may look at. */
export function createExamplePlugin(options: ExamplePluginOptions) {
  if (options.adminSecret.length < 16) {
    throw new TypeError("ADMIN_SECRET must be at least 16 characters");
  }
  const now = options.now ?? Date.now;
  const origin = options.origin.replace(/\/$/, "");
  // Only the SHA-256 of each code is kept, with its purpose and expiry.
  const codes = new Map<
    string,
    {
      purpose: "activate" | "rotate";
      installationId: string | null;
      expiresAt: number;
    }
  >();
  const installations = new Map<string, ExampleInstallation>();
  const clients = new Map<string, PluginClient>();

  function clientFor(installation: ExampleInstallation): PluginClient {
    let client = clients.get(installation.installationId);
    if (!client) {
      client = new PluginClient({
        serviceUrl: installation.serviceUrl,
        servicePolicy: options.servicePolicy,
        // Re-read on every call, so a rotation is picked up by calls already in flight.
        readToken: () =>
          installations.get(installation.installationId)?.token ?? "",
        fetch: options.fetch,
        now,
        maxAttempts: 2,
      });
      clients.set(installation.installationId, client);
    }
    return client;
  }

  async function issueCode(
    purpose: "activate" | "rotate",
    installationId: string | null,
  ): Promise<{ code: string; expiresAt: number }> {
    const code = randomCode();
    const expiresAt = now() + CODE_TTL_MS;
    codes.set(await sha256(code), { purpose, installationId, expiresAt });
    return { code, expiresAt };
  }

  async function activationCodes(req: Request): Promise<Response> {
    const auth = req.headers.get("authorization") ?? "";
    if (!timingSafeEqual(auth, `Bearer ${options.adminSecret}`)) {
      return refuse(
        401,
        "unauthorized",
        "Operator routes need the ADMIN_SECRET bearer",
      );
    }
    const body = z.strictObject({
      installation_id: z.string().min(1).max(100).optional(),
    })
      .safeParse(await req.json().catch(() => null));
    if (!body.success) {
      return refuse(
        400,
        "invalid_request",
        "Body is {} or { installation_id }",
      );
    }
    const installationId = body.data.installation_id ?? null;
    if (installationId !== null && !installations.has(installationId)) {
      return refuse(404, "not_found", "No such installation");
    }
    const purpose = installationId === null ? "activate" : "rotate";
    const { code, expiresAt } = await issueCode(purpose, installationId);
    return Response.json(
      { code, purpose, installation_id: installationId, expires_at: expiresAt },
      { status: 201 },
    );
  }

  async function activate(req: Request): Promise<Response> {
    const parsed = handoffSchema.safeParse(await req.json().catch(() => null));
    if (!parsed.success) {
      return refuse(400, "invalid_request", "The hand-off is malformed");
    }
    const handoff = parsed.data;
    const digest = await sha256(handoff.code);
    const entry = codes.get(digest);
    // A code works once, for its purpose, before it expires.
    if (
      !entry || entry.expiresAt <= now() || entry.purpose !== handoff.kind ||
      (entry.installationId !== null &&
        entry.installationId !== handoff.installation_id)
    ) {
      return refuse(
        403,
        "activation_refused",
        "The code is unknown, used or expired",
      );
    }
    const service = checkServiceUrl(handoff.service_url, options.servicePolicy);
    if (!service.ok) return refuse(400, "invalid_request", service.message);
    const existing = installations.get(handoff.installation_id);
    if (handoff.kind === "activate" && existing) {
      return refuse(
        409,
        "activation_refused",
        "This installation is already active",
      );
    }
    if (handoff.kind === "rotate" && !existing) {
      return refuse(404, "not_found", "No such installation to rotate");
    }
    codes.delete(digest);
    installations.set(handoff.installation_id, {
      installationId: handoff.installation_id,
      siteId: handoff.site_id,
      serviceUrl: service.url,
      token: handoff.token,
    });
    return new Response(null, { status: 204 });
  }

  async function hello(req: Request): Promise<Response> {
    const parsed = envelopeSchema.safeParse(await req.json().catch(() => null));
    if (!parsed.success) {
      return Response.json({
        status: "refused",
        code: "invalid_envelope",
        message: "The invocation envelope is malformed",
      });
    }
    const installation = installations.get(parsed.data.installation_id);
    if (!installation || parsed.data.expires_at <= now()) {
      return Response.json({
        status: "refused",
        code: "invocation_refused",
        message: "Unknown installation or expired invocation",
      });
    }
    const exchanged = await clientFor(installation).request({
      method: "POST",
      path: "/invocations/exchange",
      json: { code: parsed.data.code },
    });
    if (exchanged.kind !== "success") {
      return Response.json({
        status: "refused",
        code: "exchange_refused",
        message: "The service would not exchange the invocation",
      });
    }
    return Response.json({
      status: "ok",
      blocks: [
        {
          type: "text",
          text: "Hello from the example plugin",
          tone: "success",
        },
        {
          type: "json",
          filename: "exchange.json",
          data: exchanged.body ?? null,
        },
      ],
    });
  }

  async function launchPage(
    req: Request,
    installationId: string,
  ): Promise<Response> {
    const url = new URL(req.url);
    const headers = {
      "content-type": "text/html; charset=utf-8",
      "referrer-policy": "no-referrer",
      "content-security-policy":
        "default-src 'none'; style-src 'unsafe-inline'",
    };
    const installation = installations.get(installationId);
    if (!installation) {
      return new Response(
        "<!doctype html><title>Not found</title><h1>Not found</h1>",
        {
          status: 404,
          headers,
        },
      );
    }
    const code = url.searchParams.get("svc_launch");
    if (code === null) {
      return new Response(
        "<!doctype html><title>Example plugin</title><h1>Example plugin</h1><p>Open me from Stave.</p>",
        { headers },
      );
    }
    const exchanged = await clientFor(installation).request({
      method: "POST",
      path: "/launch/exchange",
      json: { code },
    });
    if (exchanged.kind !== "success") {
      return new Response(
        "<!doctype html><title>Launch refused</title><h1>Launch refused</h1>",
        { status: 403, headers },
      );
    }
    const delegation = exchanged.body as {
      delegation_id?: unknown;
      action?: unknown;
    };
    const escape = (v: unknown) =>
      String(v ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    return new Response(
      `<!doctype html><html lang="en"><title>Example plugin</title><h1>Example plugin</h1><p data-testid="launched">Launched: ${
        escape(delegation.action)
      }</p><p>Delegation ${escape(delegation.delegation_id)}</p></html>`,
      { headers },
    );
  }

  async function handler(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const path = url.pathname;
    if (req.method === "GET" && path === "/svc/manifest.json") {
      return Response.json(exampleManifest(origin));
    }
    if (req.method === "POST" && path === "/admin/activation-codes") {
      return await activationCodes(req);
    }
    if (req.method === "POST" && path === "/svc/activate") {
      return await activate(req);
    }
    if (req.method === "POST" && path === "/svc/operations/hello") {
      return await hello(req);
    }
    const launch = /^\/installations\/([^/]+)$/.exec(path);
    if (req.method === "GET" && launch) {
      return await launchPage(req, decodeURIComponent(launch[1]));
    }
    return refuse(404, "not_found", "Not found");
  }

  return { handler, installations, issueCode, origin };
}

/** A running example plugin on 127.0.0.1 (for tests and `deno task`-less local runs). */
export interface RunningExamplePlugin {
  origin: string;
  manifestUrl: string;
  installations: Map<string, ExampleInstallation>;
  /** Issues a one-time code as the operator route would. */
  issueCode(
    purpose: "activate" | "rotate",
    installationId?: string,
  ): Promise<{ code: string; expiresAt: number }>;
  close(): Promise<void>;
}

/** Starts the example plugin on a free port of 127.0.0.1; its origin is `http://127.0.0.1:<port>`. */
export function startExamplePlugin(
  options: Omit<ExamplePluginOptions, "origin"> & { port?: number } = {
    adminSecret: "example-admin-secret",
  },
): RunningExamplePlugin {
  // The origin names the port, which exists only once the server listens.
  const holder: { plugin?: ReturnType<typeof createExamplePlugin> } = {};
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: options.port ?? 0, onListen() {} },
    (req) => holder.plugin?.handler(req) ?? new Response(null, { status: 503 }),
  );
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const started = createExamplePlugin({ ...options, origin });
  holder.plugin = started;
  return {
    origin,
    manifestUrl: `${origin}/svc/manifest.json`,
    installations: started.installations,
    issueCode: (purpose, installationId) =>
      started.issueCode(purpose, installationId ?? null),
    close: () => server.shutdown(),
  };
}
