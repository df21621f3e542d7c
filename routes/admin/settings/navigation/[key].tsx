// GET/POST /admin/settings/navigation/{key}: one menu's links in order, up to two levels, each
// with a label per language and a link (a path, an https address, or an entry id).
import type { Context } from "hono";
import { adminContext } from "../../../../core/admin/context.ts";
import type { ShellData } from "../../../../core/admin/shell.ts";
import { requireSignedIn } from "../../../../core/auth/session_middleware.ts";
import { getMenu, replaceMenu } from "../../../../core/chrome/menu_admin.ts";
import type { MenuItems } from "../../../../core/chrome/menus.ts";
import { listSiteLanguages } from "../../../../core/sites/languages.ts";
import type { SettingsProblem } from "../../../../core/sites/settings.ts";
import type { AppEnv } from "../../../../core/web/env.ts";
import { page, type PageProps } from "../../../../core/web/manifest.ts";
import { AdminShell, openAdminPage } from "../../_shell.tsx";
import { formList } from "../../../../core/admin/form_values.ts";
import {
  linkText,
  parseLinkText,
} from "../../../../core/chrome/menu_link_text.ts";
import {
  loadModels,
  type StoredModel,
} from "../../../../core/models/store_rows.ts";
import { problemsAt, requireSettingsWrite } from "../_document.tsx";
import { scrollRegion } from "../../_table.tsx";

export const middleware = requireSignedIn;

/** One row of the form: a link, its parent's id when it is nested, and its labels. */
interface Row {
  id: string;
  parent: string;
  link: string;
  labels: Record<string, string>;
  /** The item path problems name (`items.2`, `items.2.children.0`). */
  path: string;
}

interface MenuData {
  title: string;
  shell: ShellData;
  key: string;
  exists: boolean;
  rows: Row[];
  languages: string[];
  problems: SettingsProblem[];
  notice?: string;
  alert?: string;
}

const BLANK_ROWS = 3;

type Models = Pick<StoredModel, "id" | "slug">[];

/** The form rows of stored items: each top-level item, then its children. */
function rowsOf(items: MenuItems, models: Models): Row[] {
  return items.flatMap((item, i) => [
    {
      id: item.id,
      parent: "",
      link: linkText(item, models),
      labels: item.label,
      path: `items.${i}`,
    },
    ...item.children.map((child, j) => ({
      id: child.id,
      parent: item.id,
      link: linkText(child, models),
      labels: child.label,
      path: `items.${i}.children.${j}`,
    })),
  ]);
}

/**
 * The items the form's rows describe (rows without an id are left out: a blank row), and the
 * rows whose link text does not read, by row id.
 */
function itemsOf(
  rows: Row[],
  models: Models,
): { items: MenuItems; unread: Map<string, string> } {
  const items: MenuItems = [];
  const unread = new Map<string, string>();
  for (const row of rows) {
    const read = parseLinkText(row.link, models);
    if (!read.ok) unread.set(row.id, read.message);
    const leaf = {
      id: row.id,
      label: row.labels,
      ...(read.ok ? read.link : {}),
    };
    const parent = row.parent && items.find((i) => i.id === row.parent);
    if (parent) parent.children.push(leaf);
    else items.push({ ...leaf, children: [] });
  }
  return { items, unread };
}

function postedRows(
  form: Record<string, unknown>,
  languages: string[],
  models: Models,
): Row[] {
  const ids = formList(form["i.id"]);
  const parents = formList(form["i.parent"]);
  const links = formList(form["i.link"]);
  const removed = new Set(formList(form["i.remove"]));
  const labels = Object.fromEntries(
    languages.map((code) => [code, formList(form[`i.label.${code}`])]),
  );
  const rows: Row[] = [];
  ids.forEach((id, i) => {
    if (id.trim() === "" || removed.has(String(i))) return;
    rows.push({
      id: id.trim(),
      parent: parents[i] ?? "",
      link: (links[i] ?? "").trim(),
      labels: Object.fromEntries(
        languages.map((code) => [code, labels[code][i] ?? ""]).filter((
          [, text],
        ) => text !== ""),
      ),
      path: "",
    });
  });
  // Problems name items by their place in the saved list: give each row that place.
  return rowsOf(itemsOf(rows, models).items, models).map((row) => ({
    ...row,
    link: rows.find((r) => r.id === row.id)?.link ?? row.link,
  }));
}

async function menuData(
  c: Context<AppEnv>,
  extra: Partial<MenuData> = {},
): Promise<MenuData> {
  const key = c.req.param("key")!;
  const { ctx, shell } = await openAdminPage(c, [
    { label: "Settings", href: "/admin/settings" },
    { label: "Navigation", href: "/admin/settings/navigation" },
    { label: key },
  ]);
  requireSettingsWrite(ctx, "chrome");
  const menu = await getMenu(ctx.services.db, ctx.site.id, key);
  return {
    title: `Menu: ${key}`,
    shell,
    key,
    exists: menu !== null,
    rows: rowsOf(
      menu?.items ?? [],
      await loadModels(ctx.services.db, ctx.site.id, null),
    ),
    languages: (await listSiteLanguages(ctx.services.db, ctx.site.id)).map((
      l,
    ) => l.code),
    problems: [],
    notice: c.req.query("done") === "saved" ? "Saved." : undefined,
    ...extra,
  };
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return page(await menuData(c));
  },

  async POST(c: Context<AppEnv>) {
    const key = c.req.param("key")!;
    const form = await c.req.parseBody({ all: true });
    const ctx = await adminContext(c);
    requireSettingsWrite(ctx, "chrome");
    const languages = (await listSiteLanguages(ctx.services.db, ctx.site.id))
      .map((l) => l.code);
    const models = await loadModels(ctx.services.db, ctx.site.id, null);
    const rows = postedRows(form, languages, models);
    const { items, unread } = itemsOf(rows, models);
    if (unread.size > 0) {
      return page(
        await menuData(c, {
          rows,
          problems: rows.flatMap((row) =>
            unread.has(row.id)
              ? [{ path: `${row.path}.link`, message: unread.get(row.id)! }]
              : []
          ),
          alert: "Some links need attention: see the messages beside them",
          notice: undefined,
        }),
        { status: 422 },
      );
    }
    const saved = await replaceMenu(
      {
        db: ctx.services.db,
        clock: ctx.services.clock,
        siteId: ctx.site.id,
        actor: ctx.actor,
      },
      key,
      items,
    );
    if (!saved.ok) {
      return page(
        await menuData(c, {
          rows,
          problems: saved.code === "input_invalid" ? saved.problems : [],
          alert: saved.code === "input_invalid"
            ? "Some links need attention: see the messages beside them"
            : "No such menu",
          notice: undefined,
        }),
        { status: 422 },
      );
    }
    return c.redirect(`/admin/settings/navigation/${key}?done=saved`, 303);
  },
};

export default function MenuPage({ data }: PageProps<MenuData>) {
  const rows: (Row | null)[] = [...data.rows, ...Array(BLANK_ROWS).fill(null)];
  const topIds = data.rows.filter((r) => r.parent === "").map((r) => r.id);
  return (
    <AdminShell shell={data.shell} title={data.title}>
      {data.notice && <p class="notice" role="status">{data.notice}</p>}
      {data.alert && <p class="alert" role="alert">{data.alert}</p>}
      {!data.exists && (
        <p class="notice" role="status">
          A new menu: add its links and save.
        </p>
      )}
      <form method="post" class="card stack">
        <input type="hidden" name="_csrf" value={data.shell.csrfToken} />
        <p class="muted">
          Links show in this order. A link with a parent is nested under it (one
          level). The link is a path on this site, an https address, an entry's
          id, <code>list:&lt;type&gt;</code>{" "}
          for the list of a content type's posts (such as{" "}
          <code>list:posts</code>), or
          <code>archive:&lt;type&gt;/&lt;field&gt;/&lt;value&gt;</code>{" "}
          for the posts of one category (a choice field's value) or one tag (a
          linked entry's id). Entries, lists and archives use their live address
          in each language and are left out while they have none. A top link
          left empty is a heading, shown only while a link under it is. Fill an
          empty row to add a link; tick Remove to drop one.
        </p>
        <div class="table-wrap" {...scrollRegion("Menu items table")}>
          <table>
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">Parent</th>
                <th scope="col">Link</th>
                {data.languages.map((code) => (
                  <th scope="col" key={code}>Label ({code})</th>
                ))}
                <th scope="col">Remove</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row, i) => {
                const messages = row ? problemsAt(data.problems, row.path) : [];
                const n = i + 1;
                return (
                  <tr key={i}>
                    <td>
                      <input
                        name="i.id"
                        value={row?.id ?? ""}
                        maxLength={64}
                        aria-label={`Link ${n}: id`}
                        aria-invalid={messages.length > 0 ? "true" : undefined}
                      />
                      {messages.length > 0 && (
                        <p class="field-error">{messages.join("; ")}</p>
                      )}
                    </td>
                    <td>
                      <select name="i.parent" aria-label={`Link ${n}: parent`}>
                        <option value="">None</option>
                        {topIds.filter((id) => id !== row?.id).map((id) => (
                          <option value={id} selected={row?.parent === id}>
                            {id}
                          </option>
                        ))}
                      </select>
                    </td>
                    <td>
                      <input
                        name="i.link"
                        value={row?.link ?? ""}
                        maxLength={2048}
                        aria-label={`Link ${n}: link`}
                        placeholder="/about"
                        aria-invalid={messages.length > 0 ? "true" : undefined}
                      />
                    </td>
                    {data.languages.map((code) => (
                      <td key={code}>
                        <input
                          name={`i.label.${code}`}
                          value={row?.labels[code] ?? ""}
                          maxLength={200}
                          aria-label={`Link ${n}: label (${code})`}
                        />
                      </td>
                    ))}
                    <td>
                      {row && (
                        <input
                          type="checkbox"
                          name="i.remove"
                          value={String(i)}
                          aria-label={`Link ${n}: remove`}
                        />
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <p class="buttons">
          <button type="submit">Save menu</button>
        </p>
      </form>
    </AdminShell>
  );
}
