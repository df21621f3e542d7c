// The plugin's pages: server-rendered, one stylesheet, no script and no third-party resource.
import type { ComponentChildren } from "preact";
import { renderToString } from "preact-render-to-string";
import { localReading } from "./core/local_time.ts";
import type { Schedule } from "./core/schedules.ts";

const STATUS_LABEL: Record<string, string> = {
  pending: "Pending",
  retrying: "Retrying",
  running: "Running",
  completed: "Done",
  refused: "Refused",
  cancelled: "Cancelled",
  superseded: "Replaced",
};

/**
 * Renders a whole page; `back` is the way back to Stave's admin for a page a launch opened (the
 * plugin's page returns to the admin instead of staying open beside it).
 */
export function renderPage(
  title: string,
  body: ComponentChildren,
  back?: string,
): string {
  return "<!doctype html>" + renderToString(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Scheduling`}</title>
        <link rel="stylesheet" href="/assets/scheduling.css" />
        <script type="module" src="/assets/picker.js"></script>
      </head>
      <body>
        <header class="top">
          <span class="brand">Scheduling</span>
          {back && <a class="back" href={back}>Back to Stave</a>}
        </header>
        <main id="main">{body}</main>
      </body>
    </html>,
  );
}

/**
 * Stave's address for returning from a session's pages: the entry the content launch was for,
 * or the admin's plugin settings for a manage launch. Built on the service URL the installation
 * was activated with, so it never points anywhere a launch did not come from.
 */
export function staveReturn(serviceUrl: string, instanceId: string | null) {
  const url = new URL(
    "admin/plugins/return",
    serviceUrl.endsWith("/") ? serviceUrl : `${serviceUrl}/`,
  );
  if (instanceId) url.searchParams.set("instance", instanceId);
  return url.toString();
}

/** A notice or an alert above the page content. */
export function Message(
  props: { notice?: string | null; alert?: string | null },
) {
  return (
    <>
      {props.notice && <p class="notice" role="status">{props.notice}</p>}
      {props.alert && <p class="alert" role="alert">{props.alert}</p>}
    </>
  );
}

/** The choices of the time form, shared by create and reschedule. */
export interface TimeDefaults {
  local: string;
  timezone: string;
  fold: "earlier" | "later";
  /**
   * No zone was chosen yet: the page's script picks the person's own (their browser's) zone,
   * so a new schedule starts in the editor's time, not UTC; without script `timezone` stays.
   */
  guessZone?: boolean;
}

/** Date and time, zone and the fold choice. */
export function TimeFields(
  props: { defaults: TimeDefaults; zones: string[]; idPrefix: string },
) {
  const p = props.idPrefix;
  return (
    <>
      <div class="field">
        <label for={`${p}-local`}>Date and time</label>
        <input
          id={`${p}-local`}
          name="local"
          type="datetime-local"
          required
          value={props.defaults.local}
        />
      </div>
      <div class="field">
        <label for={`${p}-zone`}>Time zone</label>
        <select
          id={`${p}-zone`}
          name="timezone"
          data-guess-zone={props.defaults.guessZone ? "" : undefined}
        >
          {props.zones.map((z) => (
            <option value={z} selected={z === props.defaults.timezone}>
              {z}
            </option>
          ))}
        </select>
      </div>
      <output
        class="muted preview"
        for={`${p}-local ${p}-zone`}
        aria-live="polite"
      />
      <fieldset class="field">
        <legend>If that time is skipped or repeats (clock change)</legend>
        <label>
          <input
            type="radio"
            name="fold"
            value="earlier"
            checked={props.defaults.fold === "earlier"}
          />{" "}
          Use the earlier moment
        </label>
        <label>
          <input
            type="radio"
            name="fold"
            value="later"
            checked={props.defaults.fold === "later"}
          />{" "}
          Use the later moment
        </label>
      </fieldset>
    </>
  );
}

/**
 * How a schedule's time reads: local time with zone, and the UTC instant. A view grouped in
 * the viewer's `zone` shows the time there, and names the schedule's own zone when it differs.
 */
export function When({ s, zone }: { s: Schedule; zone?: string }) {
  const shown = zone ?? s.timezone;
  return (
    <span>
      {localReading(s.due_at, shown)} {shown}
      <span class="muted">
        {` (${s.due_at.toISOString().slice(0, 16).replace("T", " ")} UTC${
          shown === s.timezone ? "" : `; set in ${s.timezone}`
        })`}
      </span>
    </span>
  );
}

/** What a schedule does, in words. */
export function describe(s: Schedule): string {
  const what = s.kind === "publish" ? "Publish" : "Unpublish";
  return s.locale === "" ? `${what}, all languages` : `${what} ${s.locale}`;
}

/** A table of schedules with links to each. */
export function ScheduleTable(
  props: {
    installationId: string;
    schedules: Schedule[];
    showTitle: boolean;
    /** The viewer's zone, when the view is grouped by its days. */
    zone?: string;
  },
) {
  if (props.schedules.length === 0) {
    return <p class="muted">No schedules yet.</p>;
  }
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label="Schedules">
      <table>
        <thead>
          <tr>
            {props.showTitle && <th scope="col">Entry</th>}
            <th scope="col">Change</th>
            <th scope="col">When</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {props.schedules.map((s) => (
            <tr>
              {props.showTitle && <td>{s.title}</td>}
              <td>
                <a
                  href={`/installations/${props.installationId}/schedules/${s.id}`}
                >
                  {describe(s)}
                </a>
              </td>
              <td>
                <When s={s} zone={props.zone} />
              </td>
              <td>
                <span class={`badge ${s.status}`}>
                  {STATUS_LABEL[s.status]}
                </span>
                {s.last_code && <span class="muted">{s.last_code}</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The hidden CSRF field of every form. */
export function Csrf({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}
