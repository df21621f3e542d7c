// GET /admin: the signed-in home: drafts waiting for review, the person's recent edits, recently published items.
import type { Context } from "hono";
import { type Dashboard, loadDashboard } from "../../core/admin/dashboard.ts";
import type { ShellData } from "../../core/admin/shell.ts";
import { requireSignedIn } from "../../core/auth/session_middleware.ts";
import type { AppEnv } from "../../core/web/env.ts";
import { page, type PageProps } from "../../core/web/manifest.ts";
import { AdminShell, openAdminPage, when } from "./_shell.tsx";

export const middleware = requireSignedIn;

/** What the home page shows. */
interface HomeData {
  title: string;
  shell: ShellData;
  dashboard: Dashboard;
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    const { ctx, shell } = await openAdminPage(c, [{ label: "Dashboard" }]);
    const data: HomeData = {
      title: "Dashboard",
      shell,
      dashboard: await loadDashboard(ctx),
    };
    return page(data);
  },
};

function ItemList(
  props: {
    id: string;
    heading: string;
    items: Dashboard["inReview"];
    empty: string;
  },
) {
  return (
    <section class="card" aria-labelledby={props.id}>
      <h2 id={props.id}>{props.heading}</h2>
      {props.items.length === 0
        ? <p class="muted">{props.empty}</p>
        : (
          <ul class="plain">
            {props.items.map((item) => (
              <li key={`${item.groupId}:${item.locale}`}>
                <a
                  href={`/admin/content/${item.modelSlug}/${item.groupId}?lang=${item.locale}`}
                >
                  {item.title}
                </a>{" "}
                <span class="muted">
                  {item.modelName} · {item.locale} · {when(item.at)}
                </span>
              </li>
            ))}
          </ul>
        )}
    </section>
  );
}

export default function AdminHome({ data }: PageProps<HomeData>) {
  const { dashboard, shell } = data;
  return (
    <AdminShell shell={shell} title="Dashboard">
      <p class="greeting">
        Welcome, {shell.user.displayName}{" "}
        <span class="muted">({shell.siteName})</span>
      </p>
      <div class="grid">
        <ItemList
          id="in-review"
          heading="Waiting for review"
          items={dashboard.inReview}
          empty="No drafts are waiting for review."
        />
        <ItemList
          id="my-edits"
          heading="Your recent edits"
          items={dashboard.myEdits}
          empty="You have not edited anything yet: open a model in the menu to start."
        />
        <ItemList
          id="recently-published"
          heading="Recently published"
          items={dashboard.published}
          empty="Nothing is published yet."
        />
      </div>
    </AdminShell>
  );
}
