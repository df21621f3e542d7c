// Release pages (spec 1 part 4.4): the list and one release for a manage session, adding the
// session's entry to a release from a content session, and the forms that rename, schedule,
// run now, unschedule or stop, and retry. Every POST carries the session's CSRF token.
import type { Context, Hono } from "hono";
import type { PluginClient } from "../sdk/mod.ts";
import type { SchedulerDb } from "./core/db.ts";
import type { ResolvedTime } from "./core/local_time.ts";
import {
  addReleaseItem,
  cancelRelease,
  checkReadiness,
  createRelease,
  type ItemReadiness,
  listReleases,
  readRelease,
  receiptOf,
  releaseItems,
  type ReleaseRefusal,
  removeReleaseItem,
  renameRelease,
  retryRecovers,
  runRelease,
  scheduleRelease,
  withReleaseLease,
} from "./core/releases.ts";
import type { DelegatedItem } from "./core/schedules.ts";
import type { PluginSession } from "./core/sessions.ts";
import type { OpenedPage } from "./opened_page.ts";
import { Csrf } from "./pages.tsx";
import {
  receiptText,
  ReleaseDetail,
  STATE_LABEL,
  when,
} from "./release_detail.tsx";

/** What the release pages borrow from the app. */
export interface ReleaseDeps {
  db: SchedulerDb;
  kv: Deno.Kv;
  now: () => number;
  zones: string[];
  headers: Record<string, string>;
  leaseMs: number;
  /** The installation, session and CSRF-checked form of a page request (app.tsx). */
  open(c: Context): Promise<OpenedPage | Response>;
  client(installation: { id: string; serviceUrl: string }): PluginClient;
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
  timeFrom(form: Record<string, unknown>): ResolvedTime;
}

const REFUSAL_STATUS: Record<string, number> = {
  invalid_request: 422,
  not_found: 404,
  already_in_release: 409,
  release_full: 409,
  release_changed: 409,
  release_locked: 409,
  release_blocked: 409,
  release_empty: 409,
  future_requires_publish: 422,
  transition_unavailable: 409,
  locale_unavailable: 422,
  execution_in_progress: 409,
  temporary_failure: 503,
  invalid_instant: 422,
  unknown_timezone: 422,
  past_time: 422,
};

/** Adds the release routes to the app. */
export function mountReleasePages(app: Hono, deps: ReleaseDeps): void {
  const base = (id: string) => `/installations/${id}/releases`;

  // The page's installation, session and checked form, for a manage or content session.
  async function open(
    c: Context,
    need: "manage" | "content" | "any",
  ): Promise<OpenedPage | Response> {
    const opened = await deps.open(c);
    if (opened instanceof Response) return opened;
    const { session } = opened;
    if (need === "manage" && session.instanceId !== null) {
      return deps.problem(
        c,
        403,
        "Open the calendar",
        "Releases are managed from the plugin's calendar in Stave's Settings → Plugins.",
      );
    }
    if (need === "content" && session.instanceId === null) {
      return deps.problem(
        c,
        403,
        "Open an entry first",
        "An entry is added from its Schedule button in Stave.",
      );
    }
    return opened;
  }

  function refused(
    c: Context,
    r: ReleaseRefusal | { code: string; message: string },
  ) {
    return deps.problem(
      c,
      REFUSAL_STATUS[r.code] ?? 422,
      "Not possible",
      `${r.message} (${r.code})`,
    );
  }

  function back(c: Context, location: string) {
    return c.body(null, 303, { ...deps.headers, location });
  }

  app.get("/installations/:id/releases", async (c) => {
    const opened = await open(c, "manage");
    if (opened instanceof Response) return opened;
    const { installation, session } = opened;
    const releases = await listReleases(deps.db, installation.id);
    return deps.page(
      c,
      200,
      "Releases",
      <>
        <h1>Releases</h1>
        <nav class="views" aria-label="Views">
          <a href={`/installations/${installation.id}`}>Agenda</a>
          <a href={`/installations/${installation.id}/calendar`}>Calendar</a>
        </nav>
        <section class="card" aria-labelledby="new-release">
          <h2 id="new-release">New release</h2>
          <form method="post" action={base(installation.id)} class="row">
            <Csrf token={session.csrf} />
            <label for="release-name">Name</label>
            <input id="release-name" name="name" required maxLength={80} />
            <button type="submit">Create</button>
          </form>
        </section>
        {releases.length === 0
          ? (
            <p class="muted">
              No releases yet. Create one, then add entries from their Schedule
              button.
            </p>
          )
          : (
            <div
              class="table-wrap"
              tabIndex={0}
              role="region"
              aria-label="Releases"
            >
              <table>
                <thead>
                  <tr>
                    <th scope="col">Release</th>
                    <th scope="col">Items</th>
                    <th scope="col">When</th>
                    <th scope="col">State</th>
                  </tr>
                </thead>
                <tbody>
                  {releases.map((r) => (
                    <tr key={r.id}>
                      <td>
                        <a href={`${base(installation.id)}/${r.id}`}>
                          {r.name}
                        </a>
                      </td>
                      <td>{r.items}</td>
                      <td>{when(r)}</td>
                      <td>
                        <span class={`badge ${r.state}`}>
                          {STATE_LABEL[r.state]}
                        </span>
                        {r.blocked_at && <span class="muted">blocked</span>}
                        {r.state === "cancelled" &&
                          receiptOf(r)?.kind === "applied" && (
                          <span class="muted">committed before the stop</span>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
      </>,
    );
  });

  app.post("/installations/:id/releases", async (c) => {
    const opened = await open(c, "manage");
    if (opened instanceof Response) return opened;
    const made = await createRelease(deps.db, {
      installationId: opened.installation.id,
      name: opened.form.name,
      email: opened.session.email,
      now: new Date(deps.now()),
    });
    if (!made.ok) return refused(c, made);
    return back(
      c,
      `${base(opened.installation.id)}/${made.release.id}?done=created`,
    );
  });

  app.get("/installations/:id/releases/:rid", async (c) => {
    const opened = await open(c, "manage");
    if (opened instanceof Response) return opened;
    const { installation, session } = opened;
    const release = await readRelease(
      deps.db,
      installation.id,
      c.req.param("rid"),
    );
    if (!release) return deps.problem(c, 404, "Not found", "No such release.");
    const items = await releaseItems(deps.db, release.id);
    const editable = release.state === "draft" || release.state === "scheduled";
    // A retry after a refusal or a stop checks readiness again (unlike the recovery of a
    // command whose outcome is unknown, which repeats it), so its button waits on the checks.
    const recovers = retryRecovers(release);
    const retryable = !recovers &&
      (release.state === "failed" || release.state === "cancelled");
    // Readiness is read live, through this person's delegation, before the release (re)starts.
    const pending = items.filter((i) => i.status !== "done");
    const checks: ItemReadiness[] = (editable || retryable) &&
        pending.length > 0
      ? await checkReadiness(
        deps.client(installation),
        session.delegationId,
        pending,
      )
      : [];
    const blocked = checks.filter((c) => c.readiness === "blocked").length;
    const unreadable = checks.filter((c) =>
      c.readiness === "unreadable"
    ).length;
    const readinessOf = new Map(checks.map((c) => [c.item.id, c]));
    const visible = items.filter((i) =>
      readinessOf.get(i.id)?.readiness !== "unreadable"
    );
    const done = c.req.query("done");
    const receipt = receiptText(release);
    return deps.page(
      c,
      200,
      release.name,
      <ReleaseDetail
        listHref={base(installation.id)}
        actionBase={`${base(installation.id)}/${release.id}`}
        csrf={session.csrf}
        zones={deps.zones}
        release={release}
        items={items}
        visible={visible}
        readinessOf={readinessOf}
        editable={editable}
        recovers={recovers}
        retryable={retryable}
        pending={pending}
        blocked={blocked}
        unreadable={unreadable}
        done={done}
        receipt={receipt}
      />,
    );
  });

  app.post("/installations/:id/releases/:rid/rename", async (c) => {
    const opened = await open(c, "manage");
    if (opened instanceof Response) return opened;
    const done = await renameRelease(
      deps.db,
      opened.installation.id,
      c.req.param("rid"),
      opened.form.name,
      new Date(deps.now()),
    );
    if (!done.ok) return refused(c, done);
    return back(
      c,
      `${base(opened.installation.id)}/${done.release.id}?done=renamed`,
    );
  });

  app.post("/installations/:id/releases/:rid/schedule", async (c) => {
    const opened = await open(c, "manage");
    if (opened instanceof Response) return opened;
    const time = deps.timeFrom(opened.form);
    if (!time.ok) return refused(c, time);
    const done = await scheduleRelease(deps.db, {
      installationId: opened.installation.id,
      releaseId: c.req.param("rid"),
      time,
      delegationId: opened.session.delegationId,
      email: opened.session.email,
      now: new Date(deps.now()),
    });
    if (!done.ok) return refused(c, done);
    return back(
      c,
      `${base(opened.installation.id)}/${done.release.id}?done=scheduled`,
    );
  });

  // Unschedule a scheduled release, or stop a running one (spec 1 part 4.4).
  app.post("/installations/:id/releases/:rid/cancel", async (c) => {
    const opened = await open(c, "manage");
    if (opened instanceof Response) return opened;
    const done = await cancelRelease(deps.db, {
      installationId: opened.installation.id,
      releaseId: c.req.param("rid"),
      email: opened.session.email,
      now: new Date(deps.now()),
    });
    if (!done.ok) return refused(c, done);
    return back(
      c,
      `${base(opened.installation.id)}/${done.release.id}?done=${
        done.stopped ? "stopped" : "unscheduled"
      }`,
    );
  });

  for (const act of ["run", "retry"] as const) {
    app.post(`/installations/:id/releases/:rid/${act}`, async (c) => {
      const opened = await open(c, "manage");
      if (opened instanceof Response) return opened;
      const releaseId = c.req.param("rid");
      const outcome = await withReleaseLease(
        deps.kv,
        releaseId,
        deps.leaseMs,
        deps.now(),
        (deadline) =>
          runRelease(
            {
              db: deps.db,
              client: deps.client(opened.installation),
              installationId: opened.installation.id,
              now: deps.now,
              deadline,
            },
            releaseId,
            {
              mode: act === "run" ? "run_now" : "retry",
              delegationId: opened.session.delegationId,
              email: opened.session.email,
            },
          ),
      );
      if (outcome === undefined) {
        return refused(c, {
          code: "execution_in_progress",
          message: "The release is running now",
        });
      }
      if (!outcome.ok) return refused(c, outcome);
      return back(
        c,
        `${base(opened.installation.id)}/${releaseId}?done=${outcome.state}`,
      );
    });
  }

  app.post(
    "/installations/:id/releases/:rid/items/:itemId/remove",
    async (c) => {
      const opened = await open(c, "any");
      if (opened instanceof Response) return opened;
      const done = await removeReleaseItem(deps.db, {
        installationId: opened.installation.id,
        releaseId: c.req.param("rid"),
        itemId: c.req.param("itemId"),
        // A content session removes only its own entry's items.
        groupId: opened.session.instanceId === null
          ? null
          : opened.session.groupId,
        now: new Date(deps.now()),
      });
      if (!done.ok) return refused(c, done);
      return back(
        c,
        opened.session.instanceId === null
          ? `${base(opened.installation.id)}/${c.req.param("rid")}?done=removed`
          : `/installations/${opened.installation.id}?done=removed`,
      );
    },
  );

  app.post("/installations/:id/release-items", async (c) => {
    const opened = await open(c, "content");
    if (opened instanceof Response) return opened;
    const { installation, session, form } = opened;
    const read = await deps.readItem(
      installation,
      session,
      session.instanceId!,
    );
    if (!read.ok) {
      return deps.problem(c, 403, "Cannot add this entry", read.message);
    }
    const [kind] = String(form.transition ?? "publish:published").split(":");
    const newName = String(form.new_release ?? "").trim();
    const added = await addReleaseItem(deps.db, {
      installationId: installation.id,
      release: newName !== "" || !form.release
        ? { newName }
        : { id: String(form.release) },
      item: read.item,
      kind: kind === "unpublish" ? "unpublish" : "publish",
      locale: String(form.locale ?? ""),
      versionMode: form.version_mode === "future" ? "future" : "ordinary",
      mayChooseLocale: session.capabilities.includes("workflow:locale"),
      email: session.email,
      now: new Date(deps.now()),
    });
    if (!added.ok) return refused(c, added);
    return back(c, `/installations/${installation.id}?done=added`);
  });
}

/** The content page's "Add to a release" form. */
export function AddToRelease(
  props: {
    installationId: string;
    csrf: string;
    releases: { id: string; name: string }[];
    languages: string[];
    chooseLocale: boolean;
    kinds: string[];
  },
) {
  return (
    <section class="card" aria-labelledby="add-release">
      <h2 id="add-release">Add to a release</h2>
      <form
        method="post"
        action={`/installations/${props.installationId}/release-items`}
      >
        <Csrf token={props.csrf} />
        <div class="field">
          <label for="release">Release</label>
          <select id="release" name="release">
            {props.releases.map((r) => (
              <option key={r.id} value={r.id}>{r.name}</option>
            ))}
            <option value="">A new release…</option>
          </select>
        </div>
        <div class="field">
          <label for="new-release-name">
            New release name (when creating one)
          </label>
          <input id="new-release-name" name="new_release" maxLength={80} />
        </div>
        <div class="field">
          <label for="transition">Change</label>
          <select id="transition" name="transition">
            {props.kinds.map((k) => (
              <option
                key={k}
                value={k === "publish"
                  ? "publish:published"
                  : "unpublish:draft"}
              >
                {k === "publish" ? "Publish" : "Unpublish"}
              </option>
            ))}
          </select>
        </div>
        {props.chooseLocale && (
          <div class="field">
            <label for="release-locale">Languages</label>
            <select id="release-locale" name="locale">
              <option value="">All languages</option>
              {props.languages.map((l) => (
                <option key={l} value={l}>Only {l}</option>
              ))}
            </select>
          </div>
        )}
        <fieldset class="field">
          <legend>Version</legend>
          <label>
            <input type="radio" name="version_mode" value="ordinary" checked />
            {" "}
            The latest saved version when the release runs
          </label>
          <label>
            <input type="radio" name="version_mode" value="future" />{" "}
            Frozen when the release first starts, so a retry publishes that same
            version (publish only)
          </label>
        </fieldset>
        <button type="submit">Add</button>
      </form>
    </section>
  );
}
