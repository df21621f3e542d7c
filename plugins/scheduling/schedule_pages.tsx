// The schedule pages (spec 1 part 4.4): an entry's page in a content session (its schedules,
// a form to schedule it, and adding it to a release), creating a schedule, one schedule's page,
// and cancelling or moving it. Every POST carries the session's CSRF token.
import type { Context, Hono } from "hono";
import type { SchedulerDb } from "./core/db.ts";
import { type Fold, resolveLocalTime } from "./core/local_time.ts";
import type { PluginSession } from "./core/sessions.ts";
import {
  cancelSchedule,
  createSchedule,
  type DelegatedItem,
  itemTitle,
  readSchedule,
  rescheduleSchedule,
  type Schedule,
  type ScheduleRefusal,
  schedulesOfGroup,
} from "./core/schedules.ts";
import type { OpenedPage } from "./opened_page.ts";
import {
  Csrf,
  describe,
  Message,
  ScheduleTable,
  TimeFields,
  When,
} from "./pages.tsx";
import { AddToRelease } from "./release_pages.tsx";

/** What the schedule pages borrow from the app. */
export interface SchedulePageDeps {
  db: SchedulerDb;
  now: () => number;
  zones: string[];
  headers: Record<string, string>;
  open(c: Context): Promise<OpenedPage | Response>;
  page(c: Context, status: number, title: string, body: unknown): Response;
  problem(c: Context, status: number, title: string, text: string): Response;
  readItem(
    installation: { id: string; serviceUrl: string },
    session: PluginSession,
    instanceId: string,
  ): Promise<
    { ok: true; item: DelegatedItem } | {
      ok: false;
      code: string;
      message: string;
    }
  >;
}

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

/** Mounts the schedule routes; answers the entry page and the form's time reader for the app. */
export function mountSchedulePages(app: Hono, deps: SchedulePageDeps) {
  const { db, now } = deps;

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
    const read = await deps.readItem(
      installation,
      session,
      session.instanceId!,
    );
    if (!read.ok) {
      return deps.problem(
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
    return deps.page(
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
                  zones={deps.zones}
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
    const opened = await deps.open(c);
    if (opened instanceof Response) return opened;
    const { installation, session, form } = opened;
    if (session.instanceId === null) {
      return deps.problem(
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
    const read = await deps.readItem(installation, session, session.instanceId);
    if (!read.ok) return deps.problem(c, 403, "Cannot schedule", read.message);
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
      ...deps.headers,
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
    const opened = await deps.open(c);
    if (opened instanceof Response) return opened;
    const { installation, session } = opened;
    const s = await readSchedule(db, installation.id, c.req.param("sid"));
    if (!s || !reaches(session, s)) {
      return deps.problem(c, 404, "Not found", "No such schedule here.");
    }
    const preview = await deps.readItem(installation, session, s.instance_id);
    const live = s.status === "pending" || s.status === "retrying";
    const done = c.req.query("done");
    return deps.page(
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
                zones={deps.zones}
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
    const opened = await deps.open(c);
    if (opened instanceof Response) return opened;
    const { installation, session, form } = opened;
    const s = await readSchedule(db, installation.id, c.req.param("sid") ?? "");
    if (!s || !reaches(session, s)) {
      return deps.problem(c, 404, "Not found", "No such schedule here.");
    }
    // The person must still be able to make this change now.
    const read = await deps.readItem(installation, session, s.instance_id);
    if (!read.ok) {
      return deps.problem(c, 403, "Cannot change this schedule", read.message);
    }
    const outcome = await act(installation.id, s, form);
    if (!outcome.ok) {
      return deps.problem(
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
    return c.body(null, 303, { ...deps.headers, location: target });
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

  return { contentPage, timeFrom };
}
