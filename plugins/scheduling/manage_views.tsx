// The manage views (spec 1 part 4.4): the agenda and the month calendar with its days, in the
// viewer's zone, filtered by model, language and state. They belong to a manage launch; a
// content session is sent to its entry.
import type { Context, Hono } from "hono";
import type { SchedulerDb } from "./core/db.ts";
import { type Schedule, schedulesBetween } from "./core/schedules.ts";
import type { PluginSession } from "./core/sessions.ts";
import type { OpenedPage } from "./opened_page.ts";
import { ScheduleTable } from "./pages.tsx";

/** What the manage views borrow from the app. */
export interface ManageViewDeps {
  db: SchedulerDb;
  now: () => number;
  zones: string[];
  open(c: Context): Promise<OpenedPage | Response>;
  page(c: Context, status: number, title: string, body: unknown): Response;
  problem(c: Context, status: number, title: string, text: string): Response;
}

/** Mounts the calendar routes; answers the agenda, which the installation's page shows. */
export function mountManageViews(app: Hono, deps: ManageViewDeps) {
  const { db, now } = deps;

  function monthRange(c: Context) {
    const zone = c.req.query("zone") ?? "UTC";
    const timezone = deps.zones.includes(zone) ? zone : "UTC";
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
    return deps.problem(
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
    return deps.page(
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
    const opened = manageOnly(c, await deps.open(c));
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
    return deps.page(
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
    const opened = manageOnly(c, await deps.open(c));
    if (opened instanceof Response) return opened;
    const { installation, session } = opened;
    let day: Temporal.PlainDate;
    try {
      day = Temporal.PlainDate.from(c.req.param("day"), { overflow: "reject" });
      if (!/^\d{4}-\d{2}-\d{2}$/.test(c.req.param("day"))) throw new Error();
    } catch {
      return deps.problem(c, 404, "Not found", "A day is written YYYY-MM-DD.");
    }
    const zone = c.req.query("zone") ?? "UTC";
    const timezone = deps.zones.includes(zone) ? zone : "UTC";
    const schedules = await schedulesBetween(db, installation.id, {
      from: new Date(day.toZonedDateTime(timezone).epochMilliseconds),
      to: new Date(
        day.add({ days: 1 }).toZonedDateTime(timezone).epochMilliseconds,
      ),
      ...viewFilter(c, session),
    });
    return deps.page(
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

  return { agenda };
}
