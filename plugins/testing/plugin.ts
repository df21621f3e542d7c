// The protocol test plugin: a small real HTTP server the service's plugin suite installs through
// PLUGIN_DEV_ORIGINS, with switchable faults (refused, hung, redirected, oversized, garbage answers)
// so every outcome of spec 1 part 7 can be reached. `plugins/example/` is the one to read first.
import { type ExampleBehaviour, exampleManifest } from "./manifest.ts";
export { exampleManifest, STOCK_CDN } from "./manifest.ts";
import { bytes, stockItems, SUNRISE } from "./stock.ts";

export type { ExampleBehaviour, ExamplePolicy } from "./manifest.ts";

/** One installation the plugin holds: the token lives only in memory here (a real plugin encrypts it at rest). */
export interface ExampleInstallation {
  id: string;
  siteId: string;
  serviceUrl: string;
  token: string;
}

interface CodeRecord {
  purpose: "activate" | "rotate";
  installationId: string | null;
  expiresAt: number;
  used: boolean;
}

const CODE_TTL_MS = 15 * 60 * 1000;
const HANDOFF_KEYS = [
  "kind",
  "code",
  "token",
  "installation_id",
  "site_id",
  "service_url",
];

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/** Options of {@linkcode startExamplePlugin}. */
export interface ExamplePluginOptions {
  hostname?: string;
  port?: number;
  /** How the plugin reaches the service; tests route it to `app.request()`. */
  serviceFetch?: (url: string, init: RequestInit) => Promise<Response>;
  /** Time source of code expiry. */
  now?: () => number;
}

/** A running example plugin. */
export interface ExamplePlugin {
  origin: string;
  manifestUrl: string;
  behaviour: ExampleBehaviour;
  installations: Map<string, ExampleInstallation>;
  /** Delegations the launch page received, by installation id. */
  delegations: Map<string, unknown>;
  /** Lifecycle notifications received. */
  events: unknown[];
  /** Hand-off bodies received, with the token and code removed. */
  handoffs: { kind: string; installation_id: string }[];
  /** Invocation envelopes received, as sent (the code replaced by "<code>"). */
  invocations: Record<string, unknown>[];
  /** What each `/invocations/exchange` answered (status and body). */
  exchanges: { status: number; body: unknown }[];
  /** The checks policies were asked, as their exchanges gave them. */
  policyChecks: Record<string, unknown>[];
  /** The ids of the policies called, in order (also those that never exchanged). */
  policyCalls: string[];
  /** The headers a reviewed frame's page was requested with. */
  /** The paths of `/files/` downloads the service made (a reference import makes none). */
  fileRequests: string[];
  /** The Referer each `/files/` request came with (a browser's preview sends none, PEXT-025). */
  fileReferers: { path: string; referer: string | null }[];
  frameRequests: {
    cookie: string | null;
    referer: string | null;
    authorization: string | null;
  }[];
  /** The headers each request of the management (launch) page came with. */
  launchRequests: {
    cookie: string | null;
    referer: string | null;
    launch: boolean;
  }[];
  /** The last invocation code a `no_exchange` run left unused (tests try it elsewhere). */
  lastCode?: string;
  /** Runs after the exchange and before the plugin answers (tests change the grant here). */
  beforeAnswer?: () => Promise<void>;
  serviceFetch: (url: string, init: RequestInit) => Promise<Response>;
  /** Issues a one-time activation (no id) or rotation code, valid 15 minutes; only its digest is kept. */
  issueCode(installationId?: string): Promise<string>;
  /** Calls the plugin API with the installation's token. */
  api(
    installationId: string,
    path: string,
    /** A `FormData` body is sent as multipart; anything else as JSON. */
    init?: { method?: string; body?: unknown; key?: string },
  ): Promise<Response>;
  close(): Promise<void>;
}

const ENVELOPE_KEYS = [
  "installation_id",
  "invocation_id",
  "code",
  "expires_at",
];

/** The files the media sources offer: a picture, a program dressed as one, and a lost file. */
const STOCK_FILES: Record<string, Uint8Array | null> = {
  "sunrise.png": SUNRISE,
  "script.png": new TextEncoder().encode("#!/bin/sh\necho hi\n"),
  "gone.png": null,
  // A 70-byte PNG whose header claims 100,000 × 100,000 pixels.
  "huge.png": Uint8Array.from(
    atob(
      "iVBORw0KGgoAAAANSUhEUgABhqAAAYagCAIAAAAnMJyfAAAACElEQVR4nAMAAAAAAUgGidIAAAAASUVORK5CYII=",
    ),
    (c) => c.charCodeAt(0),
  ),
};

/** A reviewed frame's page: it takes the port Stave binds and answers through it. */
const FRAME_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Publish later</title></head>
<body><p id="state">Waiting for Stave</p><script>
addEventListener("message", (event) => {
  if (!event.data || event.data.type !== "stave:connect" || !event.ports[0]) return;
  const port = event.ports[0];
  document.getElementById("state").textContent =
    "Connected to " + event.data.context.instance_id;
  port.postMessage({ type: "resize", height: 200 });
  port.postMessage({ type: "notice", text: "The card's frame is connected" });
});
</script></body></html>`;

/** Starts the example plugin on 127.0.0.1 (a free port by default). */
export function startExamplePlugin(
  options: ExamplePluginOptions = {},
): Promise<ExamplePlugin> {
  const now = options.now ?? Date.now;
  const codes = new Map<string, CodeRecord>();
  const hanging = new Set<() => void>();
  const plugin: ExamplePlugin = {
    origin: "",
    manifestUrl: "",
    behaviour: {
      activation: "ok",
      manifest: "ok",
      version: "1.0.0",
      capabilities: [
        "content:read",
        "content:write",
        "content:propose",
        "draft:write",
        "workflow:read",
        "workflow:publish",
        "workflow:unpublish",
        "workflow:locale",
        "workflow:release",
      ],
      events: 204,
      operation: "ok",
    },
    installations: new Map(),
    delegations: new Map(),
    events: [],
    handoffs: [],
    invocations: [],
    exchanges: [],
    policyChecks: [],
    policyCalls: [],
    fileRequests: [],
    fileReferers: [],
    frameRequests: [],
    launchRequests: [],
    serviceFetch: options.serviceFetch ?? ((url, init) => fetch(url, init)),
    async issueCode(installationId) {
      const code = crypto.randomUUID() + crypto.randomUUID();
      codes.set(await sha256(code), {
        purpose: installationId ? "rotate" : "activate",
        installationId: installationId ?? null,
        expiresAt: now() + CODE_TTL_MS,
        used: false,
      });
      return code;
    },
    async api(installationId, path, init = {}) {
      const installation = plugin.installations.get(installationId);
      if (!installation) {
        throw new Error(`No installation "${installationId}" in the plugin`);
      }
      const headers: Record<string, string> = {
        authorization: `Bearer ${installation.token}`,
      };
      // A form (an upload) is sent as multipart, with the boundary its encoding chooses.
      const form = init.body instanceof FormData;
      if (init.body !== undefined && !form) {
        headers["content-type"] = "application/json";
      }
      if (init.key !== undefined) headers["idempotency-key"] = init.key;
      return await plugin.serviceFetch(
        `${installation.serviceUrl}/api/plugin/v1${path}`,
        {
          method: init.method ?? (init.body === undefined ? "GET" : "POST"),
          headers,
          body: init.body === undefined
            ? undefined
            : form
            ? init.body as FormData
            : JSON.stringify(init.body),
        },
      );
    },
    async close() {
      for (const release of hanging) release();
      await server.shutdown();
    },
  };

  async function activate(request: Request): Promise<Response> {
    const mode = plugin.behaviour.activation;
    if (mode === "hang") {
      await new Promise<void>((resolve) => hanging.add(resolve));
      return new Response(null, { status: 503 });
    }
    if (mode === "redirect") {
      return new Response(null, {
        status: 302,
        headers: { location: `${plugin.origin}/elsewhere` },
      });
    }
    if (mode === "huge") return new Response("x".repeat(65_536));
    if (mode === "refuse") return new Response(null, { status: 403 });
    let body: Record<string, unknown>;
    try {
      body = await request.json();
    } catch {
      return new Response(null, { status: 400 });
    }
    // Closed: an unknown key makes the plugin refuse.
    const keys = Object.keys(body);
    if (
      keys.length !== HANDOFF_KEYS.length ||
      !keys.every((k) => HANDOFF_KEYS.includes(k))
    ) {
      return new Response(null, { status: 400 });
    }
    const digest = await sha256(String(body.code));
    const record = codes.get(digest);
    if (
      !record || record.used || now() >= record.expiresAt ||
      record.purpose !== body.kind ||
      (body.kind === "rotate" && record.installationId !== body.installation_id)
    ) {
      return new Response(null, { status: 403 });
    }
    const id = String(body.installation_id);
    if (body.kind === "activate" && plugin.installations.has(id)) {
      return new Response(null, { status: 409 });
    }
    if (body.kind === "rotate" && !plugin.installations.has(id)) {
      return new Response(null, { status: 404 });
    }
    record.used = true;
    plugin.installations.set(id, {
      id,
      siteId: String(body.site_id),
      serviceUrl: String(body.service_url),
      token: String(body.token),
    });
    plugin.handoffs.push({ kind: String(body.kind), installation_id: id });
    if (mode === "late") {
      await new Promise<void>((resolve) => hanging.add(resolve));
      return new Response(null, { status: 503 });
    }
    return new Response(null, { status: 204 });
  }

  async function launchPage(request: Request, id: string): Promise<Response> {
    const url = new URL(request.url);
    const code = url.searchParams.get("svc_launch");
    plugin.launchRequests.push({
      cookie: request.headers.get("cookie"),
      referer: request.headers.get("referer"),
      launch: code !== null,
    });
    const headers = { "referrer-policy": "no-referrer" };
    if (code === null) {
      return new Response(
        "<!doctype html><title>Example</title><p>Open me from the service.",
        {
          headers: { ...headers, "content-type": "text/html" },
        },
      );
    }
    const exchanged = await plugin.api(id, "/launch/exchange", {
      body: { code },
    });
    if (!exchanged.ok) return new Response(null, { status: 403, headers });
    plugin.delegations.set(id, (await exchanged.json()).data);
    // The code never stays in the address bar or history.
    return new Response(null, {
      status: 303,
      headers: { ...headers, location: `/installations/${id}` },
    });
  }

  async function operation(request: Request, id: string): Promise<Response> {
    const mode = plugin.behaviour.operation;
    let envelope: Record<string, unknown>;
    try {
      envelope = await request.json();
    } catch {
      return Response.json({
        status: "refused",
        code: "invalid_envelope",
        message: "Not JSON",
      });
    }
    plugin.invocations.push({ ...envelope, code: "<code>" });
    // Closed: exactly four keys, or the plugin refuses (PEXT-012).
    const keys = Object.keys(envelope);
    const installation = plugin.installations.get(
      String(envelope.installation_id),
    );
    if (
      keys.length !== ENVELOPE_KEYS.length ||
      !keys.every((k) => ENVELOPE_KEYS.includes(k)) || !installation
    ) {
      return Response.json({
        status: "refused",
        code: "invalid_envelope",
        message: "The invocation envelope is not one this plugin accepts",
      });
    }
    if (mode === "hang") {
      await new Promise<void>((resolve) => hanging.add(resolve));
      return new Response(null, { status: 503 });
    }
    if (mode === "unavailable") return new Response(null, { status: 503 });
    let exchanged: unknown = null;
    if (mode === "no_exchange") plugin.lastCode = String(envelope.code);
    if (mode !== "no_exchange") {
      const res = await plugin.api(installation.id, "/invocations/exchange", {
        body: { code: envelope.code },
      });
      exchanged = await res.json();
      plugin.exchanges.push({ status: res.status, body: exchanged });
      if (!res.ok) {
        return Response.json({
          status: "refused",
          code: "exchange_refused",
          message: "The service would not exchange the invocation",
        });
      }
    }
    await plugin.beforeAnswer?.();
    if (mode === "garbage") return new Response("<html>no");
    if (mode === "refuse") {
      return Response.json({
        status: "refused",
        code: "nothing_to_do",
        message: "Nothing to count in this entry",
      });
    }
    return Response.json({
      status: "ok",
      blocks: [
        { type: "text", text: `Ran ${id}` },
        mode === "undeclared_block"
          ? { type: "rows", columns: ["a"], rows: [["b"]] }
          : { type: "json", filename: "exchange.json", data: exchanged },
      ],
    });
  }

  /**
   * A media-source page: exchange the code (which says what is asked), then answer one item a
   * page (`q` filters titles; `item_id` asks for one item).
   */
  async function mediaSource(
    request: Request,
    sourceId: string,
  ): Promise<Response> {
    const envelope = await request.json().catch(() => null) as
      | Record<string, unknown>
      | null;
    const installation = plugin.installations.get(
      String(envelope?.installation_id),
    );
    if (!installation) return new Response(null, { status: 400 });
    const res = await plugin.api(installation.id, "/invocations/exchange", {
      body: { code: envelope!.code },
    });
    const exchanged = await res.json();
    plugin.exchanges.push({ status: res.status, body: exchanged });
    if (!res.ok) return new Response(null, { status: 403 });
    if (plugin.behaviour.mediaSourceFault === "garbage") {
      return new Response("<html>no");
    }
    const asked = exchanged.data.media_source as {
      q: string | null;
      cursor: string | null;
      item_id: string | null;
    };
    // The copy-only source offers no delivery URL.
    const all = stockItems(plugin.origin).map((i) =>
      sourceId === "stock" ? i : { ...i, delivery_url: undefined }
    );
    if (asked.item_id !== null) {
      return Response.json({
        items: all.filter((i) => i.id === asked.item_id),
        next_cursor: null,
      });
    }
    const found = all.filter((i) =>
      asked.q === null || i.title.toLowerCase().includes(asked.q.toLowerCase())
    );
    const at = Number(asked.cursor ?? "0");
    return Response.json({
      items: found.slice(at, at + 1),
      next_cursor: at + 1 < found.length ? String(at + 1) : null,
    });
  }

  /** A policy check: exchange the code (which says what is checked), then decide. */
  async function policy(request: Request, id: string): Promise<Response> {
    const declared = plugin.behaviour.policies?.find((p) => p.id === id);
    const sent = await request.text();
    let envelope: Record<string, unknown> | null = null;
    try {
      envelope = JSON.parse(sent);
    } catch {
      // Answered 404 below.
    }
    const installation = plugin.installations.get(
      String(envelope?.installation_id),
    );
    if (!declared || !installation) return new Response(null, { status: 404 });
    plugin.policyCalls.push(id);
    const answer = declared.answer;
    if (answer === "hang") {
      await new Promise<void>((resolve) => hanging.add(resolve));
      return new Response(null, { status: 503 });
    }
    if (answer === "unavailable") return new Response(null, { status: 503 });
    if (answer === "no_exchange") return Response.json({ decision: "allow" });
    const res = await plugin.api(installation.id, "/invocations/exchange", {
      body: { code: envelope!.code },
    });
    const exchangeText = await res.text();
    const exchanged = JSON.parse(exchangeText);
    plugin.exchanges.push({ status: res.status, body: exchanged });
    if (!res.ok) return new Response(null, { status: 403 });
    const check = exchanged.data.policy as Record<string, unknown>;
    plugin.policyChecks.push(check);
    await plugin.beforeAnswer?.();
    if (answer === "garbage") return new Response("<html>no");
    if (typeof answer === "object" && typeof answer.fill === "number") {
      const spent = bytes(sent) +
        bytes(JSON.stringify({ code: envelope!.code })) + bytes(exchangeText);
      const empty = JSON.stringify({
        decision: "transform",
        values: { title: "" },
      });
      const pad = 65_536 + answer.fill - spent - bytes(empty);
      return new Response(
        JSON.stringify({
          decision: "transform",
          values: { title: "x".repeat(pad) },
        }),
        { headers: { "content-type": "application/json" } },
      );
    }
    return Response.json(
      typeof answer === "function" ? answer(check) : answer,
    );
  }

  const server = Deno.serve({
    hostname: options.hostname ?? "127.0.0.1",
    port: options.port ?? 0,
    onListen: () => {},
  }, async (request) => {
    const url = new URL(request.url);
    if (request.method === "GET" && url.pathname.startsWith("/files/")) {
      plugin.fileRequests.push(url.pathname);
      plugin.fileReferers.push({
        path: url.pathname,
        referer: request.headers.get("referer"),
      });
      const bytes = STOCK_FILES[url.pathname.slice("/files/".length)];
      return bytes
        ? new Response(bytes as Uint8Array<ArrayBuffer>, {
          headers: { "content-type": "application/octet-stream" },
        })
        : new Response(null, { status: 404 });
    }
    if (request.method === "POST" && url.pathname.startsWith("/svc/media/")) {
      return await mediaSource(
        request,
        url.pathname.slice("/svc/media/".length),
      );
    }
    if (request.method === "GET" && url.pathname === "/frames/card") {
      plugin.frameRequests.push({
        cookie: request.headers.get("cookie"),
        referer: request.headers.get("referer"),
        authorization: request.headers.get("authorization"),
      });
      return new Response(FRAME_PAGE, {
        headers: { "content-type": "text/html; charset=utf-8" },
      });
    }
    if (request.method === "GET" && url.pathname === "/svc/manifest.json") {
      const mode = plugin.behaviour.manifest;
      if (mode === "garbage") return new Response("<html>not json");
      if (mode === "redirect") {
        return new Response(null, {
          status: 301,
          headers: { location: "https://elsewhere.example.com/m.json" },
        });
      }
      return Response.json(exampleManifest(plugin.origin, plugin.behaviour));
    }
    if (request.method === "POST" && url.pathname === "/svc/activate") {
      return await activate(request);
    }
    if (request.method === "POST" && url.pathname === "/svc/events") {
      plugin.events.push(await request.json());
      return new Response(null, { status: plugin.behaviour.events });
    }
    const checked = /^\/svc\/policies\/([a-z0-9-]+)$/.exec(url.pathname);
    if (request.method === "POST" && checked) {
      return await policy(request, checked[1]);
    }
    const op = /^\/svc\/operations\/([a-z0-9-]+)$/.exec(url.pathname);
    if (request.method === "POST" && op) return await operation(request, op[1]);
    const launch = /^\/installations\/([0-9a-f-]{36})$/.exec(url.pathname);
    if (request.method === "GET" && launch) {
      return await launchPage(request, launch[1]);
    }
    return new Response("Not found", { status: 404 });
  });
  const address = server.addr as Deno.NetAddr;
  plugin.origin = `http://${address.hostname}:${address.port}`;
  plugin.manifestUrl = `${plugin.origin}/svc/manifest.json`;
  return Promise.resolve(plugin);
}

if (import.meta.main) {
  const plugin = await startExamplePlugin({
    port: Number(Deno.env.get("PORT") ?? 8787),
  });
  console.log(
    `Example plugin on ${plugin.origin}; manifest ${plugin.manifestUrl}`,
  );
  console.log(`Activation code (15 minutes): ${await plugin.issueCode()}`);
}
