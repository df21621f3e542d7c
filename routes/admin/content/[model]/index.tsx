// GET/POST /admin/content/{model}: a model's entries with filters, sort, search, cursor pages and bulk actions.
import type { Context } from "hono";
import { decide } from "../../../../core/access/decide.ts";
import {
  BULK_ACTIONS,
  type BulkResult,
  parseSelection,
  runBulk,
} from "../../../../core/admin/bulk.ts";
import {
  listEntries,
  type ListPage,
  type ListQuery,
  parseListQuery,
  SORTS,
  STAGES,
  STATUSES,
} from "../../../../core/admin/entry_list.ts";
import { modelBySlug } from "../../../../core/admin/models.ts";
import type { ShellData } from "../../../../core/admin/shell.ts";
import { titleFieldOf } from "../../../../core/admin/titles.ts";
import { requireSignedIn } from "../../../../core/auth/session_middleware.ts";
import type { AppEnv } from "../../../../core/web/env.ts";
import { page, type PageProps } from "../../../../core/web/manifest.ts";
import { PluginListBadges } from "../../_plugin_slots.tsx";
import {
  listColumns,
  type PluginColumn,
} from "../../../../core/admin/plugin_operations.ts";
import { AdminShell, openAdminPage, when } from "../../_shell.tsx";

export const middleware = requireSignedIn;

/** What the list page shows. */
interface ListData {
  title: string;
  shell: ShellData;
  model: { id: string; slug: string; name: string; titleLabel: string };
  fields: { key: string; label: string }[];
  languages: string[];
  query: ListQuery;
  list: ListPage;
  /** Columns of plugins' column operations on this model, with this page's badges. */
  pluginColumns: PluginColumn[];
  filtered: boolean;
  mayCreate: boolean;
  results?: (BulkResult & { title: string })[];
  bulkAction?: string;
}

const STATUS_LABELS: Record<string, string> = {
  any: "Not in Trash",
  draft: "Draft",
  published: "Published",
  changed: "Published with changes",
  trashed: "In Trash",
};
const STAGE_LABELS: Record<string, string> = {
  draft: "Draft",
  in_review: "In review",
  changes_requested: "Changes requested",
  approved: "Approved",
};
const ACTION_LABELS: Record<string, string> = {
  publish: "Publish",
  unpublish: "Unpublish",
  trash: "Move to Trash",
  restore: "Restore from Trash",
  "stage:submit": "Submit for review",
  "stage:approve": "Approve",
  "stage:request_changes": "Request changes",
  "stage:withdraw": "Withdraw from review",
};

async function listData(
  c: Context<AppEnv>,
  extra: Partial<ListData> = {},
): Promise<ListData> {
  const slug = c.req.param("model")!;
  const { ctx, shell } = await openAdminPage(c, []);
  const model = await modelBySlug(ctx, slug);
  shell.crumbs.push({ label: model.name });
  const url = new URL(c.req.url);
  const query = parseListQuery(url.searchParams, model);
  if (query.lang !== "" && !ctx.site.languages.includes(query.lang)) {
    query.lang = "";
  }
  const list = await listEntries(ctx, model, query);
  const pluginColumns = await listColumns(
    ctx,
    model.id,
    list.rows.map((r) => r.instanceId),
  );
  return {
    title: model.name,
    shell,
    model: {
      id: model.id,
      slug: model.slug,
      name: model.name,
      titleLabel: titleFieldOf(model)?.label ?? "Slug",
    },
    fields: model.fields.map((f) => ({ key: f.key, label: f.label })),
    languages: ctx.site.languages,
    query,
    list,
    filtered: query.status !== "any" || query.stage !== "" || query.q !== "" ||
      query.field !== "" || query.lang !== "",
    mayCreate: decide(ctx.authority, { action: "create", model: model.id }).ok,
    pluginColumns,
    ...extra,
  };
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return page(await listData(c));
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody({ all: true });
    const action = String(form.action ?? "");
    const { ctx } = await openAdminPage(c, []);
    const model = await modelBySlug(ctx, c.req.param("model")!);
    const selected = parseSelection(
      (Array.isArray(form.select) ? form.select : [form.select ?? ""]).map(
        String,
      ),
    );
    const locale = String(form.lang ?? "");
    if (
      !(BULK_ACTIONS as readonly string[]).includes(action) ||
      selected.length === 0
    ) {
      return page(
        await listData(c, {
          results: [],
          bulkAction: "",
        }),
        { status: 400 },
      );
    }
    const results = await runBulk(ctx, {
      action,
      selection: selected,
      locale: ctx.site.languages.includes(locale) ? locale : undefined,
    });
    const data = await listData(c);
    // Titles come from a fresh read, so an entry moved to Trash still gets its name.
    const titles = new Map<string, string>();
    for (const row of data.list.rows) titles.set(row.groupId, row.title);
    return page({
      ...data,
      bulkAction: action,
      results: results.map((r) => ({
        ...r,
        title: titles.get(r.groupId) ?? r.groupId,
      })),
      model: { ...data.model, id: model.id },
    });
  },
};

function hrefWith(
  base: string,
  query: ListQuery,
  change: Partial<ListQuery>,
): string {
  const q = { ...query, ...change };
  const params = new URLSearchParams();
  if (q.lang) params.set("lang", q.lang);
  if (q.status !== "any") params.set("status", q.status);
  if (q.stage) params.set("stage", q.stage);
  if (q.q) params.set("q", q.q);
  if (q.field) params.set("field", q.field);
  if (q.field) params.set("value", q.value);
  params.set("sort", `${q.desc ? "-" : ""}${q.sort}`);
  for (const col of q.columns) params.append("col", col);
  if (q.cursor) params.set("cursor", q.cursor);
  return `${base}?${params}`;
}

function SortLink(
  props: { data: ListData; sort: ListQuery["sort"]; label: string },
) {
  const { query } = props.data;
  const active = query.sort === props.sort;
  const desc = active ? !query.desc : props.sort !== "title";
  return (
    <a
      href={hrefWith(`/admin/content/${props.data.model.slug}`, query, {
        sort: props.sort,
        desc,
        cursor: "",
      })}
    >
      {props.label}
      {active ? (query.desc ? " ↓" : " ↑") : ""}
    </a>
  );
}

function Filters({ data }: { data: ListData }) {
  const { query } = data;
  return (
    <form method="get" class="card filters" role="search" aria-label="Filter">
      <p>
        <label for="list-q">Search</label>
        <input
          id="list-q"
          name="q"
          type="search"
          value={query.q}
          maxLength={200}
        />
      </p>
      <p>
        <label for="list-status">Status</label>
        <select id="list-status" name="status">
          {STATUSES.map((s) => (
            <option value={s} selected={query.status === s}>
              {STATUS_LABELS[s]}
            </option>
          ))}
        </select>
      </p>
      <p>
        <label for="list-stage">Workflow stage</label>
        <select id="list-stage" name="stage">
          <option value="">Any stage</option>
          {STAGES.map((s) => (
            <option value={s} selected={query.stage === s}>
              {STAGE_LABELS[s]}
            </option>
          ))}
        </select>
      </p>
      <p>
        <label for="list-lang">Language</label>
        <select id="list-lang" name="lang">
          <option value="">Every language</option>
          {data.languages.map((l) => (
            <option value={l} selected={query.lang === l}>{l}</option>
          ))}
        </select>
      </p>
      <p>
        <label for="list-field">Field</label>
        <select id="list-field" name="field">
          <option value="">No field filter</option>
          {data.fields.map((f) => (
            <option value={f.key} selected={query.field === f.key}>
              {f.label}
            </option>
          ))}
        </select>
      </p>
      <p>
        <label for="list-value">Field value</label>
        <input
          id="list-value"
          name="value"
          value={query.value}
          maxLength={200}
        />
      </p>
      <input
        type="hidden"
        name="sort"
        value={`${query.desc ? "-" : ""}${query.sort}`}
      />
      <details>
        <summary>Columns</summary>
        {data.fields.map((f) => (
          <label class="check" key={f.key}>
            <input
              type="checkbox"
              name="col"
              value={f.key}
              checked={query.columns.includes(f.key)}
            />{" "}
            {f.label}
          </label>
        ))}
      </details>
      <p>
        <button type="submit">Apply</button>
      </p>
      {data.filtered && (
        <p>
          <a href={`/admin/content/${data.model.slug}`}>Clear filters</a>
        </p>
      )}
    </form>
  );
}

function Results({ data }: { data: ListData }) {
  if (!data.results) return null;
  if (data.results.length === 0) {
    return (
      <p class="alert" role="alert">
        Choose an action and at least one entry, then apply.
      </p>
    );
  }
  const done = data.results.filter((r) => r.ok).length;
  return (
    <section class="card" aria-labelledby="bulk-results" role="status">
      <h2 id="bulk-results">
        {ACTION_LABELS[data.bulkAction ?? ""] ?? "Action"}: {done} of{" "}
        {data.results.length} done
      </h2>
      <ul class="plain">
        {data.results.map((r) => (
          <li key={r.groupId}>
            <span class={r.ok ? "result-ok" : "result-refused"}>
              {r.ok ? "✓" : "✗"}
            </span>{" "}
            <a href={`/admin/content/${data.model.slug}/${r.groupId}`}>
              {r.title}
            </a>: {r.message}
          </li>
        ))}
      </ul>
    </section>
  );
}

export default function EntryList({ data }: PageProps<ListData>) {
  const { model, query, list } = data;
  const base = `/admin/content/${model.slug}`;
  const columns = query.columns.map((k) =>
    data.fields.find((f) => f.key === k)!
  ).filter(Boolean);
  return (
    <AdminShell
      shell={data.shell}
      title={model.name}
      actions={data.mayCreate && (
        <a class="button" href={`${base}/new`}>New entry</a>
      )}
    >
      <Filters data={data} />
      <Results data={data} />
      {list.rows.length === 0
        ? (
          <section class="card empty">
            {data.filtered
              ? (
                <>
                  <h2>No entries match these filters</h2>
                  <p>
                    Change the filters above, or <a href={base}>clear them</a>
                    {" "}
                    to see every entry.
                  </p>
                </>
              )
              : (
                <>
                  <h2>No {model.name.toLowerCase()} yet</h2>
                  <p>
                    {data.mayCreate
                      ? "Create the first entry: it stays a draft until you publish it."
                      : "Entries appear here once someone creates them; your role cannot create them."}
                  </p>
                  {data.mayCreate && (
                    <p>
                      <a class="button" href={`${base}/new`}>
                        Create the first entry
                      </a>
                    </p>
                  )}
                </>
              )}
          </section>
        )
        : (
          <section class="card" aria-label="Entries">
            <form method="post" id="bulk" class="inline">
              <input type="hidden" name="_csrf" value={data.shell.csrfToken} />
              <input type="hidden" name="lang" value={query.lang} />
              <label for="bulk-action">With the selected entries</label>
              <select id="bulk-action" name="action">
                {BULK_ACTIONS.map((a) => (
                  <option value={a}>{ACTION_LABELS[a]}</option>
                ))}
              </select>
              <button type="submit" class="secondary">Apply to selected</button>
            </form>
            {list.searched && (
              <p class="muted">
                Search matches published text through site search, and titles of
                drafts.
              </p>
            )}
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">
                      <span class="visually-hidden">Select</span>
                    </th>
                    <th scope="col">
                      <SortLink
                        data={data}
                        sort="title"
                        label={model.titleLabel}
                      />
                    </th>
                    <th scope="col">Status</th>
                    <th scope="col">Languages</th>
                    {columns.map((col) => (
                      <th scope="col" key={col.key}>{col.label}</th>
                    ))}
                    <th scope="col">
                      <SortLink data={data} sort="updated" label="Updated" />
                    </th>
                    <PluginListBadges columns={data.pluginColumns} header />
                  </tr>
                </thead>
                <tbody>
                  {list.rows.map((row) => (
                    <tr key={row.groupId}>
                      <td>
                        <input
                          type="checkbox"
                          name="select"
                          form="bulk"
                          value={`${row.groupId}:${row.revision}`}
                          id={`select-${row.groupId}`}
                          aria-label={`Select ${row.title}`}
                        />
                      </td>
                      <td>
                        <a href={`${base}/${row.groupId}?lang=${row.locale}`}>
                          {row.title}
                        </a>
                      </td>
                      <td>
                        <span class={`badge ${row.status}`}>
                          {STATUS_LABELS[row.status]}
                        </span>
                        {row.stage !== "draft" && (
                          <>
                            {" "}
                            <span class="badge">{STAGE_LABELS[row.stage]}</span>
                          </>
                        )}
                      </td>
                      <td>
                        {data.languages.map((l) => (
                          <span
                            key={l}
                            class={`badge ${
                              row.languages.includes(l) ? "" : "missing"
                            }`}
                            title={row.languages.includes(l)
                              ? `${l}: translated`
                              : `${l}: missing`}
                          >
                            {l}
                            <span class="visually-hidden">
                              {row.languages.includes(l)
                                ? " translated"
                                : " missing"}
                            </span>
                          </span>
                        ))}
                      </td>
                      {columns.map((col) => (
                        <td key={col.key}>{row.cells[col.key]}</td>
                      ))}
                      <td>{when(row.updatedAt)}</td>
                      <PluginListBadges
                        columns={data.pluginColumns}
                        instance={row.instanceId}
                      />
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {data.pluginColumns.filter((c) => c.error).map((c) => (
              <p class="warning" key={c.key}>
                The column “{c.label}” ({c.pluginName}) could not be read now:
                {" "}
                {c.error}
              </p>
            ))}
            <nav class="pager" aria-label="Pages">
              {query.cursor
                ? (
                  <a href={hrefWith(base, query, { cursor: "" })}>
                    First page
                  </a>
                )
                : <span />}
              {list.nextCursor && (
                <a
                  href={hrefWith(base, query, { cursor: list.nextCursor })}
                  rel="next"
                >
                  Next page
                </a>
              )}
            </nav>
          </section>
        )}
      <p class="muted">
        Sort by: {SORTS.map((s, i) => (
          <>
            {i > 0 && " · "}
            <SortLink
              data={data}
              sort={s}
              label={s === "title" ? model.titleLabel : s}
            />
          </>
        ))}
      </p>
    </AdminShell>
  );
}
