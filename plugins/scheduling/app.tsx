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
import { type Fold, resolveLocalTime } from "./core/local_time.ts";
import {
  cancelSchedule,
  createSchedule,
  type DelegatedItem,
  itemTitle,
  readSchedule,
  rescheduleSchedule,
  type Schedule,
  type ScheduleRefusal,
  schedulesBetween,
  schedulesOfGroup,
} from "./core/schedules.ts";
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
import { AddToRelease, mountReleasePages } from "./release_pages.tsx";
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
import {
  Csrf,
  describe,
  Message,
  renderPage,
  ScheduleTable,
  staveReturn,
  TimeFields,
  When,
} from "./pages.tsx";

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

const STATUS: Record<string, 400 | 403 | 404 | 409 | 422> = {
  transition_unavailable: 409,
  locale_unavailable: 422,
  execution_in_progress: 409,
  schedule_finished: 409,
  not_found: 404,
  capability_refused: 403,
  invalid_instant: 422,
  unknown_timezone: 422,
  past_time: 422,
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

  async function contentPage(
    c: Context,
    installation: { id: string; serviceUrl: string },
    session: PluginSession,
    state: {
      notice?: string | null;
      alert?: string | null;
      status?: number;
      defaults?: {
        kind: string;
        locale: string;
        local: string;
        timezone: string;
        fold: Fold;
      };
    },
  ) {
    const read = await readItem(installation, session, session.instanceId!);
    if (!read.ok) {
      return problem(
        c,
        read.code === "content_not_found" ? 404 : 403,
        "Cannot schedule",
        read.message,
      );
    }
    const item = read.item;
    const workflow = item.workflow;
    const kinds = (["publish", "unpublish"] as const).filter((k) =>
      workflow?.transitions.some((t) => t.kind === k) ||
      Object.values(workflow?.locales ?? {}).some((l) =>
        l.transitions.some((t) => t.kind === k)
      )
    );
    const chooseLocale = session.capabilities.includes("workflow:locale") &&
      item.languages.length > 1;
    const openReleases = await db.selectFrom("releases").select(["id", "name"])
      .where("installation_id", "=", installation.id)
      .where("state", "in", ["draft", "scheduled"])
      .orderBy("created_at", "desc").limit(50).execute();
    const inReleases = await db.selectFrom("release_items")
      .innerJoin("releases", "releases.id", "release_items.release_id")
      .select([
        "release_items.id as item_id",
        "release_items.release_id",
        "release_items.kind",
        "release_items.locale",
        "releases.name",
        "releases.state",
      ])
      .where("release_items.installation_id", "=", installation.id)
      .where("release_items.group_id", "=", item.group_id)
      .orderBy("release_items.created_at", "desc").limit(50).execute();
    const schedules = await schedulesOfGroup(
      db,
      installation.id,
      item.group_id,
    );
    const d = state.defaults ?? {
      kind: kinds[0] ?? "publish",
      locale: "",
      local: "",
      timezone: "UTC",
      fold: "later" as Fold,
    };
    return page(
      c,
      state.status ?? 200,
      itemTitle(item),
      <>
        <h1>{itemTitle(item)}</h1>
        <p class="muted">Signed in through Stave as {session.email}</p>
        <Message notice={state.notice} alert={state.alert} />
        <section class="card" aria-labelledby="new-schedule">
          <h2 id="new-schedule">Schedule a change</h2>
          {kinds.length === 0
            ? (
              <p>
                You may not publish or unpublish this entry now, so there is
                nothing to schedule.
              </p>
            )
            : (
              <form
                method="post"
                action={`/installations/${installation.id}/schedules`}
                data-time-preview
              >
                <Csrf token={session.csrf} />
                <div class="field">
                  <label for="kind">Change</label>
                  <select id="kind" name="kind">
                    {kinds.map((k) => (
                      <option value={k} selected={k === d.kind}>
                        {k === "publish"
                          ? "Publish the current version"
                          : "Unpublish"}
                      </option>
                    ))}
                  </select>
                </div>
                {chooseLocale && (
                  <div class="field">
                    <label for="locale">Languages</label>
                    <select id="locale" name="locale">
                      <option value="" selected={d.locale === ""}>
                        All languages
                      </option>
                      {item.languages.map((l) => (
                        <option
                          value={l.locale}
                          selected={l.locale === d.locale}
                        >
                          Only {l.locale}
                        </option>
                      ))}
                    </select>
                  </div>
                )}
                <TimeFields
                  idPrefix="new"
                  zones={ZONES}
                  defaults={{
                    local: d.local,
                    timezone: d.timezone,
                    fold: d.fold,
                    guessZone: state.defaults === undefined,
                  }}
                />
                <button type="submit">Schedule</button>
              </form>
            )}
        </section>
        <h2>Schedules of this entry</h2>
        <ScheduleTable
          installationId={installation.id}
          schedules={schedules}
          showTitle={false}
        />
        {session.capabilities.includes("workflow:release") &&
          kinds.length > 0 && (
          <AddToRelease
            installationId={installation.id}
            csrf={session.csrf}
            releases={openReleases}
            languages={item.languages.map((l) => l.locale)}
            chooseLocale={chooseLocale}
            kinds={kinds}
          />
        )}
        {inReleases.length > 0 && (
          <>
            <h2>In releases</h2>
            <ul>
              {inReleases.map((r) => (
                <li key={r.item_id}>
                  {r.name}: {r.kind === "publish" ? "publish" : "unpublish"}
                  {" "}
                  {r.locale === "" ? "all languages" : r.locale} ({r.state})
                  {(r.state === "draft" || r.state === "scheduled") && (
                    <form
                      method="post"
                      action={`/installations/${installation.id}/releases/${r.release_id}/items/${r.item_id}/remove`}
                    >
                      <Csrf token={session.csrf} />
                      <button type="submit" class="secondary">
                        Remove from {r.name}
                      </button>
                    </form>
                  )}
                </li>
              ))}
            </ul>
          </>
        )}
      </>,
    );
  }

  // A page request's installation and plugin session, and on POST its form with the CSRF
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

  function timeFrom(form: Record<string, unknown>) {
    const fold: Fold = form.fold === "earlier" ? "earlier" : "later";
    return resolveLocalTime(
      String(form.local ?? "").slice(0, 16),
      String(form.timezone ?? ""),
      fold,
      new Date(now()),
    );
  }

  app.post("/installations/:id/schedules", async (c) => {
    const opened = await openPage(c);
    if (opened instanceof Response) return opened;
    const { installation, session, form } = opened;
    if (session.instanceId === null) {
      return problem(
        c,
        403,
        "Open an entry first",
        "A schedule is made from an entry's Schedule button in Stave.",
      );
    }
    const kind = form.kind === "unpublish" ? "unpublish" : "publish";
    const locale = String(form.locale ?? "");
    const defaults = {
      kind,
      locale,
      local: String(form.local ?? "").slice(0, 16),
      timezone: String(form.timezone ?? "UTC").slice(0, 64),
      fold: (form.fold === "earlier" ? "earlier" : "later") as Fold,
    };
    const time = timeFrom(form);
    if (!time.ok) {
      return await contentPage(c, installation, session, {
        alert: `${time.message} (${time.code})`,
        status: STATUS[time.code],
        defaults,
      });
    }
    const read = await readItem(installation, session, session.instanceId);
    if (!read.ok) return problem(c, 403, "Cannot schedule", read.message);
    const created = await createSchedule(db, {
      installationId: installation.id,
      delegationId: session.delegationId,
      requesterEmail: session.email,
      item: read.item,
      kind,
      locale,
      mayChooseLocale: session.capabilities.includes("workflow:locale"),
      time: {
        local: time.local,
        timezone: time.timezone,
        fold: time.fold,
        dueAt: time.dueAt,
      },
      now: new Date(now()),
    });
    if (!created.ok) {
      return await contentPage(c, installation, session, {
        alert: `${created.message} (${created.code})`,
        status: STATUS[created.code],
        defaults,
      });
    }
    return c.body(null, 303, {
      ...PAGE_HEADERS,
      location:
        `/installations/${installation.id}/schedules/${created.schedule.id}?done=created`,
    });
  });

  // A session may see a schedule of its own entry (content launch) or of a model it reaches.
  function reaches(session: PluginSession, s: Schedule): boolean {
    return session.groupId !== null
      ? s.group_id === session.groupId
      : session.models.some((m) => m.model_id === s.model_id);
  }

  app.get("/installations/:id/schedules/:sid", async (c) => {
    const opened = await openPage(c);
    if (opened instanceof Response) return opened;
    const { installation, session } = opened;
    const s = await readSchedule(db, installation.id, c.req.param("sid"));
    if (!s || !reaches(session, s)) {
      return problem(c, 404, "Not found", "No such schedule here.");
    }
    const preview = await readItem(installation, session, s.instance_id);
    const live = s.status === "pending" || s.status === "retrying";
    const done = c.req.query("done");
    return page(
      c,
      200,
      describe(s),
      <>
        <p>
          <a href={`/installations/${installation.id}`}>
            {session.instanceId === null ? "Agenda" : "Back to the entry"}
          </a>
        </p>
        <h1>{describe(s)}: {s.title}</h1>
        <Message
          notice={done === "created"
            ? "Scheduled."
            : done === "moved"
            ? "Moved to the new time."
            : null}
        />
        <section class="card">
          <dl>
            <dt>When</dt>
            <dd>
              <When s={s} />
            </dd>
            <dt>Status</dt>
            <dd>{s.status}{s.last_code ? ` (${s.last_code})` : ""}</dd>
            {s.last_message && (
              <>
                <dt>Last message</dt>
                <dd>{s.last_message}</dd>
              </>
            )}
            <dt>Pinned version</dt>
            <dd>
              <code>{s.pinned_version_id ?? "none"}</code>
            </dd>
            <dt>Requested by</dt>
            <dd>{s.requester_email}</dd>
            <dt>Attempts</dt>
            <dd>{s.attempts}</dd>
          </dl>
        </section>
        <section class="card" aria-labelledby="preview">
          <h2 id="preview">Preview</h2>
          {preview.ok
            ? (
              <dl>
                {Object.entries(preview.item.fields).slice(0, 12).map((
                  [k, v],
                ) => (
                  <>
                    <dt>{k}</dt>
                    <dd>
                      {typeof v === "string"
                        ? v.slice(0, 300)
                        : JSON.stringify(v).slice(0, 300)}
                    </dd>
                  </>
                ))}
              </dl>
            )
            : <p>{preview.message}</p>}
        </section>
        {live && (
          <section class="card" aria-labelledby="change">
            <h2 id="change">Change this schedule</h2>
            <form
              method="post"
              action={`/installations/${installation.id}/schedules/${s.id}/reschedule`}
              data-time-preview
            >
              <Csrf token={session.csrf} />
              <TimeFields
                idPrefix="move"
                zones={ZONES}
                defaults={{
                  local: s.local_datetime,
                  timezone: s.timezone,
                  fold: s.fold,
                }}
              />
              <button type="submit">Move</button>
            </form>
            <form
              method="post"
              action={`/installations/${installation.id}/schedules/${s.id}/cancel`}
            >
              <Csrf token={session.csrf} />
              <p>
                <button type="submit" class="secondary">
                  Cancel this schedule
                </button>
              </p>
            </form>
          </section>
        )}
      </>,
    );
  });

  async function changeSchedule(
    c: Context,
    act: (
      installationId: string,
      s: Schedule,
      form: Record<string, unknown>,
    ) => Promise<
      { ok: true; schedule: Schedule } | ScheduleRefusal | {
        ok: false;
        code: string;
        message: string;
      }
    >,
    done: string,
  ) {
    const opened = await openPage(c);
    if (opened instanceof Response) return opened;
    const { installation, session, form } = opened;
    const s = await readSchedule(db, installation.id, c.req.param("sid") ?? "");
    if (!s || !reaches(session, s)) {
      return problem(c, 404, "Not found", "No such schedule here.");
    }
    // The person must still be able to make this change now.
    const read = await readItem(installation, session, s.instance_id);
    if (!read.ok) {
      return problem(c, 403, "Cannot change this schedule", read.message);
    }
    const outcome = await act(installation.id, s, form);
    if (!outcome.ok) {
      return problem(
        c,
        STATUS[outcome.code] ?? 422,
        "Cannot change this schedule",
        `${outcome.message} (${outcome.code})`,
      );
    }
    const target = session.instanceId === null
      ? `/installations/${installation.id}/schedules/${outcome.schedule.id}?done=${done}`
      : done === "moved"
      ? `/installations/${installation.id}/schedules/${outcome.schedule.id}?done=${done}`
      : `/installations/${installation.id}?done=${done}`;
    return c.body(null, 303, { ...PAGE_HEADERS, location: target });
  }

  app.post(
    "/installations/:id/schedules/:sid/cancel",
    (c) =>
      changeSchedule(
        c,
        (id, s) => cancelSchedule(db, id, s.id, new Date(now())),
        "cancelled",
      ),
  );

  app.post(
    "/installations/:id/schedules/:sid/reschedule",
    (c) =>
      changeSchedule(c, async (id, s, form) => {
        const time = timeFrom(form);
        if (!time.ok) return time;
        return await rescheduleSchedule(db, id, s.id, {
          local: time.local,
          timezone: time.timezone,
          fold: time.fold,
          dueAt: time.dueAt,
        }, new Date(now()));
      }, "moved"),
  );

  // ---------- Manage views: agenda and calendar ----------

  function monthRange(c: Context) {
    const zone = c.req.query("zone") ?? "UTC";
    const timezone = ZONES.includes(zone) ? zone : "UTC";
    const today = Temporal.Instant.fromEpochMilliseconds(now())
      .toZonedDateTimeISO(timezone);
    const month = /^\d{4}-\d{2}$/.test(c.req.query("month") ?? "")
      ? Temporal.PlainYearMonth.from(c.req.query("month")!)
      : today.toPlainDate().toPlainYearMonth();
    const first = month.toPlainDate({ day: 1 });
    const from = new Date(first.toZonedDateTime(timezone).epochMilliseconds);
    const to = new Date(
      first.add({ months: 1 }).toZonedDateTime(timezone).epochMilliseconds,
    );
    return { timezone, month, from, to };
  }

  // The calendar and its days belong to a manage launch; a content session sees its entry.
  function manageOnly(
    c: Context,
    opened: OpenedPage | Response,
  ): OpenedPage | Response {
    if (opened instanceof Response || opened.session.instanceId === null) {
      return opened;
    }
    return problem(
      c,
      403,
      "Open the calendar",
      "The calendar opens from the plugin's page in Stave's Settings → Plugins.",
    );
  }

  // The manage views' filters: `model` (one of the delegation's models), `lang`, `state`.
  function viewFilter(c: Context, session: PluginSession) {
    const reachable = session.instanceId === null
      ? session.models.map((m) => m.model_id)
      : [];
    const model = c.req.query("model");
    const state = c.req.query("state");
    return {
      modelIds: model ? reachable.filter((m) => m === model) : reachable,
      locale: c.req.query("lang")?.slice(0, 35) || undefined,
      statuses: state ? [state] : undefined,
    };
  }

  async function agenda(
    c: Context,
    installation: { id: string },
    session: PluginSession,
  ) {
    const { timezone, month, from, to } = monthRange(c);
    const schedules = await schedulesBetween(db, installation.id, {
      from,
      to,
      ...viewFilter(c, session),
    });
    // One month grouped by day in the viewer's zone, days in due order.
    const days = new Map<string, Schedule[]>();
    for (const s of schedules) {
      const day = Temporal.Instant.fromEpochMilliseconds(s.due_at.getTime())
        .toZonedDateTimeISO(timezone).toPlainDate().toString();
      days.set(day, [...(days.get(day) ?? []), s]);
    }
    return page(
      c,
      200,
      "Agenda",
      <>
        <h1>Agenda, {month.toString()}</h1>
        <nav class="views" aria-label="Views">
          <a
            href={`/installations/${installation.id}?month=${
              month.subtract({ months: 1 })
            }&zone=${timezone}`}
          >
            Previous month
          </a>
          <a
            href={`/installations/${installation.id}?month=${
              month.add({ months: 1 })
            }&zone=${timezone}`}
          >
            Next month
          </a>
          <a
            href={`/installations/${installation.id}/calendar?month=${month}&zone=${timezone}`}
          >
            Calendar
          </a>
          <a href={`/installations/${installation.id}/releases`}>Releases</a>
        </nav>
        <p class="muted">
          Times in {timezone}. Schedules of the models you can read.
        </p>
        {days.size === 0 && (
          <ScheduleTable
            installationId={installation.id}
            schedules={[]}
            showTitle
          />
        )}
        {[...days].map(([day, list]) => (
          <section key={day} aria-labelledby={`day-${day}`}>
            <h2 id={`day-${day}`}>{day}</h2>
            <ScheduleTable
              installationId={installation.id}
              schedules={list}
              showTitle
              zone={timezone}
            />
          </section>
        ))}
      </>,
    );
  }

  app.get("/installations/:id/calendar", async (c) => {
    const opened = manageOnly(c, await openPage(c));
    if (opened instanceof Response) return opened;
    const { installation, session } = opened;
    const { timezone, month, from, to } = monthRange(c);
    const schedules = await schedulesBetween(db, installation.id, {
      from,
      to,
      ...viewFilter(c, session),
    });
    const counts = new Map<number, number>();
    for (const s of schedules) {
      const day = Temporal.Instant.fromEpochMilliseconds(s.due_at.getTime())
        .toZonedDateTimeISO(timezone).day;
      counts.set(day, (counts.get(day) ?? 0) + 1);
    }
    const lead = month.toPlainDate({ day: 1 }).dayOfWeek - 1;
    return page(
      c,
      200,
      "Calendar",
      <>
        <h1>Calendar, {month.toString()}</h1>
        <nav class="views" aria-label="Views">
          <a
            href={`/installations/${installation.id}/calendar?month=${
              month.subtract({ months: 1 })
            }&zone=${timezone}`}
          >
            Previous month
          </a>
          <a
            href={`/installations/${installation.id}/calendar?month=${
              month.add({ months: 1 })
            }&zone=${timezone}`}
          >
            Next month
          </a>
          <a
            href={`/installations/${installation.id}?month=${month}&zone=${timezone}`}
          >
            Agenda
          </a>
          <a href={`/installations/${installation.id}/releases`}>Releases</a>
        </nav>
        <div
          class="month"
          role="list"
          aria-label={`Schedules per day in ${month}`}
        >
          {["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map((d) => (
            <div key={d} class="weekday" aria-hidden="true">{d}</div>
          ))}
          {Array.from(
            { length: lead },
            (_, i) => <div key={`lead-${i}`} class="day" aria-hidden="true" />,
          )}
          {Array.from(
            { length: month.daysInMonth },
            (_, i) => (
              <div class="day" role="listitem">
                {counts.get(i + 1)
                  ? (
                    <a
                      href={`/installations/${installation.id}/calendar/${
                        month.toPlainDate({ day: i + 1 })
                      }?zone=${timezone}`}
                    >
                      {i + 1}
                      <span class="count">
                        {counts.get(i + 1)}
                        <span class="sr-only">scheduled</span>
                      </span>
                    </a>
                  )
                  : i + 1}
              </div>
            ),
          )}
        </div>
      </>,
    );
  });

  app.get("/installations/:id/calendar/:day", async (c) => {
    const opened = manageOnly(c, await openPage(c));
    if (opened instanceof Response) return opened;
    const { installation, session } = opened;
    let day: Temporal.PlainDate;
    try {
      day = Temporal.PlainDate.from(c.req.param("day"), { overflow: "reject" });
      if (!/^\d{4}-\d{2}-\d{2}$/.test(c.req.param("day"))) throw new Error();
    } catch {
      return problem(c, 404, "Not found", "A day is written YYYY-MM-DD.");
    }
    const zone = c.req.query("zone") ?? "UTC";
    const timezone = ZONES.includes(zone) ? zone : "UTC";
    const schedules = await schedulesBetween(db, installation.id, {
      from: new Date(day.toZonedDateTime(timezone).epochMilliseconds),
      to: new Date(
        day.add({ days: 1 }).toZonedDateTime(timezone).epochMilliseconds,
      ),
      ...viewFilter(c, session),
    });
    return page(
      c,
      200,
      day.toString(),
      <>
        <p>
          <a
            href={`/installations/${installation.id}/calendar?month=${day.toPlainYearMonth()}&zone=${timezone}`}
          >
            Back to the calendar
          </a>
        </p>
        <h1>{day.toString()}</h1>
        <p class="muted">Times in {timezone}, by due time.</p>
        <ScheduleTable
          installationId={installation.id}
          schedules={schedules}
          showTitle
          zone={timezone}
        />
      </>,
    );
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
