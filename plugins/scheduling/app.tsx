// The scheduling plugin as one request handler (spec 1 part 4.4): the service-facing routes
// (manifest, activation, operations), the operator routes behind ADMIN_SECRET, and the pages
// a launch opens. It reaches Stave only through /api/plugin/v1 with its installation token.
import { Hono } from "hono";
import type { Context } from "hono";
import { z } from "zod";
import {
  checkServiceUrl,
  parseActivationHandoff,
  parseInvocationEnvelope,
  type ServiceUrlPolicy,
  timingSafeEqual,
} from "../sdk/mod.ts";
import type { SchedulerDb } from "./core/db.ts";
import {
  consumeCode,
  deleteInstallationData,
  issueCode,
  readInstallation,
  storeHandoff,
} from "./core/installations.ts";
import { type DelegatedItem } from "./core/schedules.ts";
import {
  csrfMatches,
  openSession,
  type PluginSession,
  readSession,
  sessionCookie,
} from "./core/sessions.ts";
import { installationClient } from "./core/tick.ts";
import { isConnectionError } from "../sdk/pg_faults.ts";
import type { TokenBox } from "./core/token_box.ts";
import { schedulingManifest } from "./manifest.ts";
import { mountReleasePages } from "./release_pages.tsx";
import { mountManageViews } from "./manage_views.tsx";
import { mountSchedulePages } from "./schedule_pages.tsx";
import type { OpenedPage } from "./opened_page.ts";
import {
  type BoundRun,
  scheduleColumn,
  scheduleDraft,
  scheduleStatus,
} from "./operations.ts";
import {
  releaseEditOperation,
  releaseRunOperation,
  releasesOperation,
  timelinePreviewOperation,
} from "./release_operations.ts";

/** The operations this plugin answers (each declared in its manifest). */
const OPERATIONS = [
  "schedule-status",
  "schedule-column",
  "schedule-draft",
  "releases",
  "release-edit",
  "release-run",
  "timeline-preview",
];
import { renderPage, staveReturn } from "./pages.tsx";

/** What the plugin's handler needs. */
export interface SchedulingAppOptions {
  origin: string;
  adminSecret: string;
  db: SchedulerDb;
  kv: Deno.Kv;
  box: TokenBox;
  servicePolicy: ServiceUrlPolicy;
  now?: () => number;
  /** Injected in tests: how the plugin reaches the service. */
  fetch?: typeof fetch;
  /** The release lease (`LEASE_MS`). */
  leaseMs?: number;
  /** Waits between retries; tests inject one that moves their clock. */
  sleep?: (ms: number) => Promise<void>;
}

const PAGE_HEADERS = {
  "referrer-policy": "no-referrer",
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
};

// `UTC` first: Intl lists only geographic zones.
const ZONES = [
  "UTC",
  ...Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC"),
];

export type { OpenedPage };

/** Builds the handler. */
export function createSchedulingApp(options: SchedulingAppOptions) {
  const now = options.now ?? Date.now;
  const { db, kv, box } = options;
  const app = new Hono();

  // A person waits on these calls: two attempts with short backoff.
  function clientFor(installation: { id: string; serviceUrl: string }) {
    return installationClient(
      {
        db,
        box,
        servicePolicy: options.servicePolicy,
        fetch: options.fetch,
        now,
        sleep: options.sleep,
      },
      { id: installation.id, service_url: installation.serviceUrl },
      { maxAttempts: 2, backoffBaseMs: 200, backoffMaxMs: 1000 },
    );
  }

  // The way back to Stave of each request a session opened, read when its page is drawn.
  const backTo = new WeakMap<Request, string>();

  function page(c: Context, status: number, title: string, body: unknown) {
    const back = backTo.get(c.req.raw);
    return c.body(renderPage(title, body as never, back), status as 200, {
      ...PAGE_HEADERS,
      "content-type": "text/html; charset=utf-8",
    });
  }

  function problem(c: Context, status: number, title: string, text: string) {
    return page(
      c,
      status,
      title,
      <section class="card">
        <h1>{title}</h1>
        <p>{text}</p>
      </section>,
    );
  }

  // ---------- Service-facing ----------

  app.get(
    "/svc/manifest.json",
    (c) => c.json(schedulingManifest(options.origin)),
  );

  // The stylesheet and the time preview script: the only files pages load.
  for (
    const [name, type] of [
      ["scheduling.css", "text/css"],
      ["picker.js", "text/javascript"],
    ]
  ) {
    app.get(`/assets/${name}`, async (c) => {
      const text = await Deno.readTextFile(
        new URL(`./static/${name}`, import.meta.url),
      );
      return c.body(text, 200, {
        "content-type": `${type}; charset=utf-8`,
        "cache-control": "public, max-age=300",
      });
    });
  }

  app.post("/svc/activate", async (c) => {
    const handoff = parseActivationHandoff(
      await c.req.json().catch(() => null),
    );
    if (!handoff) {
      return c.json({
        error: {
          code: "invalid_request",
          message: "The hand-off is malformed",
        },
      }, 400);
    }
    // The address is checked before the one-time code is spent, so a hand-off refused for its
    // address can be sent again, corrected, with the same code.
    const service = checkServiceUrl(handoff.service_url, options.servicePolicy);
    if (!service.ok) {
      return c.json({
        error: { code: "invalid_request", message: service.message },
      }, 400);
    }
    if (!(await consumeCode(kv, handoff, now()))) {
      return c.json({
        error: {
          code: "activation_refused",
          message: "The code is unknown, used or expired",
        },
      }, 403);
    }
    const stored = await storeHandoff(db, box, {
      ...handoff,
      service_url: service.url,
    }, new Date(now()));
    if (stored === "exists") {
      return c.json({
        error: {
          code: "activation_refused",
          message: "This installation is already active",
        },
      }, 409);
    }
    if (stored === "missing") {
      return c.json({
        error: { code: "not_found", message: "No such installation to rotate" },
      }, 404);
    }
    return c.body(null, 204);
  });

  app.post("/svc/operations/:operation", async (c) => {
    const refused = (code: string, message: string) =>
      c.json({ status: "refused", code, message });
    const operation = c.req.param("operation");
    if (!OPERATIONS.includes(operation)) {
      return refused("unknown_operation", "This plugin has no such operation");
    }
    const envelope = parseInvocationEnvelope(
      await c.req.json().catch(() => null),
    );
    if (!envelope) {
      return refused("invalid_request", "The invocation envelope is malformed");
    }
    const installation = await readInstallation(db, envelope.installation_id);
    if (!installation || envelope.expires_at <= now()) {
      return refused(
        "invocation_refused",
        "Unknown installation or expired invocation",
      );
    }
    const client = clientFor(installation);
    const exchanged = await client.exchangeInvocation(envelope.code);
    const run = exchanged.kind === "success"
      ? (exchanged.body as { data?: BoundRun }).data
      : undefined;
    if (!run) {
      return refused(
        "exchange_refused",
        "The service would not exchange the invocation",
      );
    }
    if (run.operation_id !== operation) {
      return refused(
        "invalid_request",
        "The invocation is for another operation",
      );
    }
    const releaseDeps = {
      db,
      kv,
      client,
      installationId: installation.id,
      now,
      leaseMs: options.leaseMs ?? 60_000,
    };
    switch (operation) {
      case "schedule-status":
        return c.json(await scheduleStatus(db, installation.id, run));
      case "schedule-column":
        return c.json(await scheduleColumn(db, installation.id, run));
      case "schedule-draft":
        return c.json(
          await scheduleDraft(
            db,
            client,
            installation.id,
            run,
            new Date(now()),
          ),
        );
      case "releases":
        return c.json(await releasesOperation(releaseDeps, run));
      case "release-edit":
        return c.json(await releaseEditOperation(releaseDeps, run));
      case "release-run":
        return c.json(await releaseRunOperation(releaseDeps, run));
      default:
        return c.json(await timelinePreviewOperation(releaseDeps, run));
    }
  });

  // ---------- Operator ----------

  function operator(c: Context): boolean {
    return timingSafeEqual(
      c.req.header("authorization") ?? "",
      `Bearer ${options.adminSecret}`,
    );
  }

  app.post("/admin/activation-codes", async (c) => {
    if (!operator(c)) {
      return c.json({
        error: {
          code: "unauthorized",
          message: "Operator routes need the ADMIN_SECRET bearer",
        },
      }, 401);
    }
    const body = z.strictObject({
      installation_id: z.string().min(1).max(100).optional(),
    })
      .safeParse(await c.req.json().catch(() => null));
    if (!body.success) {
      return c.json({
        error: {
          code: "invalid_request",
          message: "Body is {} or { installation_id }",
        },
      }, 400);
    }
    const installationId = body.data.installation_id ?? null;
    if (
      installationId !== null && !(await readInstallation(db, installationId))
    ) {
      return c.json({
        error: { code: "not_found", message: "No such installation" },
      }, 404);
    }
    const purpose = installationId === null ? "activate" : "rotate";
    const { code, expiresAt } = await issueCode(
      kv,
      purpose,
      installationId,
      now(),
    );
    return c.json({
      code,
      purpose,
      installation_id: installationId,
      expires_at: expiresAt,
    }, 201);
  });

  app.post("/admin/installations/:id/delete-data", async (c) => {
    if (!operator(c)) {
      return c.json({
        error: {
          code: "unauthorized",
          message: "Operator routes need the ADMIN_SECRET bearer",
        },
      }, 401);
    }
    const done = await deleteInstallationData(db, c.req.param("id"));
    if (done === "missing") {
      return c.json({
        error: { code: "not_found", message: "No data for this installation" },
      }, 404);
    }
    if (done === "running") {
      return c.json({
        error: {
          code: "execution_in_progress",
          message: "A schedule is running; try again in a minute",
        },
      }, 409);
    }
    return c.json({ deleted: true });
  });

  // ---------- Pages ----------

  async function sessionOf(c: Context): Promise<PluginSession | null> {
    return await readSession(
      kv,
      c.req.header("cookie") ?? null,
      c.req.param("id") ?? "",
      now(),
    );
  }

  function noSession(c: Context) {
    return problem(
      c,
      401,
      "Open this from Stave",
      "This page opens from a Schedule button in Stave. Open the entry there and choose Schedule again.",
    );
  }

  async function readItem(
    installation: { id: string; serviceUrl: string },
    session: PluginSession,
    instanceId: string,
  ): Promise<
    { ok: true; item: DelegatedItem } | {
      ok: false;
      code: string;
      message: string;
    }
  > {
    const read = await clientFor(installation).content(
      instanceId,
      session.delegationId,
    );
    if (read.kind !== "success") {
      const code = read.code ?? "temporary_failure";
      return {
        ok: false,
        code,
        message: code === "requester_unauthorized"
          ? "You no longer hold the authority for this; a person who does must schedule it."
          : code === "content_not_found"
          ? "This content is gone or out of reach."
          : "Stave could not be reached; try again in a moment.",
      };
    }
    return { ok: true, item: (read.body as { data: DelegatedItem }).data };
  }

  app.get("/installations/:id", async (c) => {
    const installation = await readInstallation(db, c.req.param("id"));
    if (!installation) {
      return problem(
        c,
        404,
        "Not found",
        "This installation is unknown to the plugin.",
      );
    }
    const code = c.req.query("svc_launch");
    if (code !== undefined) {
      const client = clientFor(installation);
      const exchanged = await client.exchangeLaunch(code);
      if (exchanged.kind !== "success") {
        return problem(
          c,
          403,
          "Launch refused",
          "The launch link was used, expired or is not for this installation. Open it again from Stave.",
        );
      }
      const d = (exchanged.body as {
        data: {
          delegation_id: string;
          action: string;
          view: string | null;
          instance_id: string | null;
          group_id: string | null;
          model_ids: { model_id: string; access: string }[];
          user: { email: string };
        };
      }).data;
      const context = await client.context();
      const grant = context.kind === "success"
        ? (context.body as {
          data: {
            grant: { capabilities: string[] };
            site: { languages: { code: string }[] };
          };
        }).data
        : null;
      const value = await openSession(kv, {
        installationId: installation.id,
        delegationId: d.delegation_id,
        action: d.action,
        view: d.view,
        instanceId: d.instance_id,
        groupId: d.group_id,
        models: d.model_ids,
        email: d.user.email,
        capabilities: grant?.grant.capabilities ?? [],
        languages: grant?.site.languages.map((l) => l.code) ?? [],
      }, now());
      const view = c.req.query("svc_view");
      const target = view === "calendar"
        ? `/installations/${installation.id}/calendar`
        : view === "releases"
        ? `/installations/${installation.id}/releases`
        : `/installations/${installation.id}`;
      return c.body(null, 303, {
        ...PAGE_HEADERS,
        location: target,
        "set-cookie": sessionCookie(value),
      });
    }
    const session = await sessionOf(c);
    if (!session) return noSession(c);
    backTo.set(
      c.req.raw,
      staveReturn(installation.serviceUrl, session.instanceId),
    );
    if (session.instanceId === null) {
      return await agenda(c, installation, session);
    }
    return await contentPage(c, installation, session, {
      notice: c.req.query("done") === "created"
        ? "Scheduled."
        : c.req.query("done") === "cancelled"
        ? "Cancelled: nothing will be sent."
        : c.req.query("done") === "moved"
        ? "Moved to the new time."
        : c.req.query("done") === "added"
        ? "Added to the release."
        : c.req.query("done") === "removed"
        ? "Removed from the release."
        : null,
    });
  });

  // token checked; a Response when any of them is missing.
  async function openPage(c: Context): Promise<OpenedPage | Response> {
    const installation = await readInstallation(db, c.req.param("id") ?? "");
    const session = installation ? await sessionOf(c) : null;
    if (!installation || !session) return noSession(c);
    backTo.set(
      c.req.raw,
      staveReturn(installation.serviceUrl, session.instanceId),
    );
    let form: Record<string, unknown> = {};
    if (c.req.method === "POST") {
      form = await c.req.parseBody();
      if (!csrfMatches(session, form._csrf)) {
        return problem(
          c,
          403,
          "Form expired",
          "Reload the page and try again.",
        );
      }
    }
    return { installation, session, form };
  }

  const { contentPage, timeFrom } = mountSchedulePages(app, {
    db,
    now,
    zones: ZONES,
    headers: PAGE_HEADERS,
    open: openPage,
    page,
    problem,
    readItem,
  });

  const { agenda } = mountManageViews(app, {
    db,
    now,
    zones: ZONES,
    open: openPage,
    page,
    problem,
  });

  mountReleasePages(app, {
    db,
    kv,
    now,
    zones: ZONES,
    headers: PAGE_HEADERS,
    leaseMs: options.leaseMs ?? 60_000,
    open: openPage,
    client: clientFor,
    page,
    problem,
    readItem,
    timeFrom,
  });

  app.notFound((c) => problem(c, 404, "Not found", "There is no page here."));
  app.onError((error, c) => {
    console.error(
      `scheduling: ${error instanceof Error ? error.message : String(error)}`,
    );
    if (isConnectionError(error)) {
      // Nothing was acknowledged on the lost connection; the pool reconnects on the next query.
      const answer = problem(
        c,
        503,
        "Unavailable for a moment",
        "The plugin's database did not answer. Try again in a few seconds.",
      );
      answer.headers.set("Retry-After", "2");
      answer.headers.set("Cache-Control", "no-store");
      return answer;
    }
    return problem(
      c,
      500,
      "Something went wrong",
      "The plugin could not answer. Try again in a moment.",
    );
  });

  return app;
}
