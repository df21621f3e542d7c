// The page of one release (spec 1 part 4.4): its state and receipt in words, its items with
// their live readiness, and the forms that rename, schedule, run now, unschedule or stop, and
// retry. release_pages.tsx reads what it shows and mounts the routes.
import { localReading } from "./core/local_time.ts";
import {
  type ItemReadiness,
  receiptOf,
  type Release,
  type ReleaseItem,
} from "./core/releases.ts";
import { Csrf, Message, TimeFields } from "./pages.tsx";

export const STATE_LABEL: Record<string, string> = {
  draft: "Draft",
  scheduled: "Scheduled",
  running: "Running",
  done: "Done",
  failed: "Failed",
  unknown: "Outcome unknown",
  cancelled: "Cancelled",
};

const utc = (iso: unknown) =>
  typeof iso === "string" ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "";

/** The receipt in words: a commit, a blocked attempt, or a stop and what its command came to. */
export function receiptText(release: Release): string | null {
  const receipt = receiptOf(release);
  if (!receipt) return null;
  if (receipt.kind === "applied") {
    return receipt.stopped_at === undefined
      ? `Committed at ${utc(receipt.at)}`
      : `Committed at ${utc(receipt.at)}, after the stop at ${
        utc(receipt.stopped_at)
      }: the command was already in flight and a stop cannot reverse it`;
  }
  if (receipt.kind === "stopped") {
    const outcome = receipt.outcome === "not_sent"
      ? "nothing was sent"
      : receipt.outcome === "refused"
      ? `the command in flight was refused (${receipt.code}); nothing changed`
      : `a command sent before the stop may have committed${
        receipt.code ? ` (last answer ${receipt.code})` : ""
      }; Retry first repeats it under the same key ${receipt.key}`;
    return `Stopped at ${utc(receipt.at)}${
      receipt.by ? ` by ${receipt.by}` : ""
    }: ${outcome}`;
  }
  return `Blocked attempt at ${utc(receipt.at)}`;
}

export function when(release: Release): string {
  if (!release.due_at || !release.timezone) return "No time set";
  return `${
    localReading(release.due_at, release.timezone)
  } ${release.timezone} (${
    release.due_at.toISOString().slice(0, 16).replace("T", " ")
  } UTC)`;
}

export const NOTICES: Record<string, string> = {
  created: "Release created. Add entries from their Schedule button in Stave.",
  renamed: "Renamed.",
  scheduled: "Scheduled: the release runs at its time if every item is ready.",
  unscheduled: "Unscheduled: the release is a draft again.",
  stopped:
    "Stopped: nothing more is sent. A command already sent cannot be called back; the receipt shows what it came to.",
  cancelled:
    "The release was stopped while it ran; the receipt shows what its command came to.",
  removed: "Item removed.",
  done: "Committed: every item changed together.",
  failed: "Stave refused the release; nothing changed.",
  unknown:
    "No answer established whether the release was committed. Retry repeats the same command safely.",
  blocked: "Blocked.",
};

/** What the page of one release shows. */
export interface ReleaseDetailProps {
  /** The releases list's address. */
  listHref: string;
  /** Where this release's forms post (`<base>/<release id>/<action>`). */
  actionBase: string;
  csrf: string;
  zones: string[];
  release: Release;
  items: ReleaseItem[];
  /** The items this person may read, in order. */
  visible: ReleaseItem[];
  readinessOf: Map<string, ItemReadiness>;
  editable: boolean;
  recovers: boolean;
  retryable: boolean;
  pending: ReleaseItem[];
  blocked: number;
  unreadable: number;
  /** The notice of the action just done, from `?done=`. */
  done: string | undefined;
  receipt: string | null;
}

/** One release: state, receipt, items with readiness, and its forms. */
export function ReleaseDetail(props: ReleaseDetailProps) {
  const {
    release,
    items,
    visible,
    readinessOf,
    editable,
    recovers,
    retryable,
    pending,
    blocked,
    unreadable,
    done,
    receipt,
  } = props;
  const action = (name: string) => `${props.actionBase}/${name}`;
  return (
    <>
      <p>
        <a href={props.listHref}>All releases</a>
      </p>
      <h1>{release.name}</h1>
      <Message
        notice={done ? NOTICES[done] ?? null : null}
        alert={release.last_message &&
            (release.state === "failed" || release.state === "unknown" ||
              release.state === "cancelled")
          ? `${release.last_message} (${release.last_code})`
          : null}
      />
      <section class="card">
        <dl>
          <dt>State</dt>
          <dd>
            <span class={`badge ${release.state}`}>
              {STATE_LABEL[release.state]}
            </span>
            {release.blocked_at &&
              " · blocked at its time; fix the items and schedule it again"}
          </dd>
          <dt>When</dt>
          <dd>{when(release)}</dd>
          <dt>Progress</dt>
          <dd>
            {items.filter((i) => i.status === "done").length} of {items.length}
            {" "}
            items done
            {release.attempt > 0 && `, attempt ${release.attempt}`}
          </dd>
          {receipt && (
            <>
              <dt>Receipt</dt>
              <dd>{receipt}</dd>
            </>
          )}
        </dl>
      </section>
      <h2>Items</h2>
      {unreadable > 0 && (
        <p class="muted">
          {unreadable} item(s) you cannot read are part of this release.
        </p>
      )}
      {visible.length === 0
        ? (
          <p class="muted">
            No items yet: open an entry in Stave, choose Schedule, and add it to
            this release.
          </p>
        )
        : (
          <div
            class="table-wrap"
            tabIndex={0}
            role="region"
            aria-label="Items"
          >
            <table>
              <thead>
                <tr>
                  <th scope="col">Entry</th>
                  <th scope="col">Change</th>
                  <th scope="col">{editable ? "Readiness" : "Outcome"}</th>
                  {editable && (
                    <th scope="col">
                      <span class="sr-only">Remove</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {visible.map((i) => {
                  const check = readinessOf.get(i.id);
                  return (
                    <tr key={i.id}>
                      <td>{i.title}</td>
                      <td>
                        {i.kind === "publish" ? "Publish" : "Unpublish"}{" "}
                        {i.locale === "" ? "all languages" : i.locale}
                        {i.version_mode === "future" && " (future version)"}
                      </td>
                      <td>
                        {editable
                          ? (
                            <span
                              class={`badge ${
                                check?.readiness === "ready"
                                  ? "completed"
                                  : check?.readiness === "blocked"
                                  ? "refused"
                                  : "retrying"
                              }`}
                            >
                              {check?.readiness ?? "unknown"}
                            </span>
                          )
                          : (
                            <span
                              class={`badge ${
                                i.status === "done"
                                  ? "completed"
                                  : i.status === "failed"
                                  ? "refused"
                                  : ""
                              }`}
                            >
                              {i.status}
                            </span>
                          )}
                        {check?.reason && (
                          <span class="muted">{check.reason}</span>
                        )}
                        {!editable && i.last_code && (
                          <span class="muted">{i.last_code}</span>
                        )}
                      </td>
                      {editable && (
                        <td>
                          <form
                            method="post"
                            action={action(`items/${i.id}/remove`)}
                          >
                            <Csrf token={props.csrf} />
                            <button
                              type="submit"
                              class="secondary"
                              aria-label={`Remove ${i.title}`}
                            >
                              Remove
                            </button>
                          </form>
                        </td>
                      )}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      {editable && (
        <section class="card" aria-labelledby="release-time">
          <h2 id="release-time">Time</h2>
          <form method="post" action={action("schedule")} data-time-preview>
            <Csrf token={props.csrf} />
            <TimeFields
              idPrefix="release"
              zones={props.zones}
              defaults={{
                local: release.local_datetime ?? "",
                timezone: release.timezone ?? "UTC",
                fold: release.fold ?? "later",
              }}
            />
            <button type="submit">
              {release.state === "scheduled" ? "Move" : "Schedule"}
            </button>
          </form>
        </section>
      )}
      <section class="card" aria-labelledby="release-actions">
        <h2 id="release-actions">Actions</h2>
        <div class="row">
          {editable && (
            <form method="post" action={action("run")}>
              <Csrf token={props.csrf} />
              <button
                type="submit"
                disabled={blocked > 0 || items.length === 0}
              >
                Run now
              </button>
            </form>
          )}
          {(release.state === "scheduled" || release.state === "running") && (
            <form method="post" action={action("cancel")}>
              <Csrf token={props.csrf} />
              <button type="submit" class="secondary">
                {release.state === "running" ? "Stop" : "Unschedule"}
              </button>
            </form>
          )}
          {((retryable && pending.length > 0) || recovers) && (
            <form method="post" action={action("retry")}>
              <Csrf token={props.csrf} />
              <button type="submit" disabled={blocked > 0}>Retry</button>
            </form>
          )}
        </div>
        {blocked > 0 && (
          <p class="muted">
            {editable ? "Run now" : "Retry"} is off while {blocked}{" "}
            item(s) are blocked.
          </p>
        )}
        <form method="post" action={action("rename")} class="row">
          <Csrf token={props.csrf} />
          <label for="rename">Name</label>
          <input
            id="rename"
            name="name"
            required
            maxLength={80}
            value={release.name}
          />
          <button type="submit" class="secondary">Rename</button>
        </form>
      </section>
    </>
  );
}
