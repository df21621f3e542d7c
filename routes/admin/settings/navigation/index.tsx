// GET/POST /admin/settings/navigation: the site's menus, where the header and footer show them,
// and the footer note (the `chrome` settings document); a new menu opens its editor.
import type { Context } from "hono";
import { adminContext } from "../../../../core/admin/context.ts";
import { requireSignedIn } from "../../../../core/auth/session_middleware.ts";
import { listMenus } from "../../../../core/chrome/menu_admin.ts";
import { listSiteLanguages } from "../../../../core/sites/languages.ts";
import { getSettings } from "../../../../core/sites/settings.ts";
import type { AppEnv } from "../../../../core/web/env.ts";
import { page, type PageProps } from "../../../../core/web/manifest.ts";
import { AdminShell } from "../../_shell.tsx";
import {
  type DocumentData,
  DocumentFormHead,
  DocumentMessages,
  FieldProblem,
  openDocumentPage,
  requireSettingsWrite,
  saveAndAnswer,
} from "../_document.tsx";

export const middleware = requireSignedIn;

/** What a menu key may be (the menus service checks it the same way). */
const MENU_KEY = /^[a-z0-9][a-z0-9_-]{0,63}$/;

interface NavigationData extends DocumentData<"chrome"> {
  menus: { key: string; items: number; languages: string[] }[];
  languages: string[];
  typedKey?: string;
  keyProblem?: string;
}

async function navigationData(
  c: Context<AppEnv>,
  extra: Partial<NavigationData> = {},
): Promise<NavigationData> {
  const { ctx, data } = await openDocumentPage(c, "chrome", "Navigation");
  const menus = await listMenus(ctx.services.db, ctx.site.id);
  return {
    ...data,
    menus: menus.map((m) => ({
      key: m.key,
      items: m.items.reduce((n, i) => n + 1 + i.children.length, 0),
      languages: m.languages,
    })),
    languages: (await listSiteLanguages(ctx.services.db, ctx.site.id)).map((
      l,
    ) => l.code),
    ...extra,
  };
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return page(await navigationData(c));
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody();
    const ctx = await adminContext(c);
    requireSettingsWrite(ctx, "chrome");
    if (form.action === "new-menu") {
      const key = String(form.key ?? "").trim();
      if (!MENU_KEY.test(key)) {
        return page(
          await navigationData(c, {
            typedKey: key,
            keyProblem:
              "Use lower-case letters, digits, _ and -, starting with a letter or digit",
          }),
          { status: 422 },
        );
      }
      return c.redirect(`/admin/settings/navigation/${key}`, 303);
    }
    const languages = (await listSiteLanguages(ctx.services.db, ctx.site.id))
      .map((l) => l.code);
    const placement = (value: unknown) => {
      const key = String(value ?? "");
      return key === "" ? null : key;
    };
    const footerNote: Record<string, string> = {};
    for (const code of languages) {
      const note = String(form[`note.${code}`] ?? "");
      if (note !== "") footerNote[code] = note;
    }
    // Regions are edited on their own page: this form keeps them as stored.
    const { regions } = (await getSettings(
      { db: ctx.services.db, siteId: ctx.site.id },
      "chrome",
    )).document;
    const document = {
      placements: {
        header: placement(form.header),
        footer: placement(form.footer),
      },
      footer_note: footerNote,
      ...(regions ? { regions } : {}),
    };
    return saveAndAnswer(c, ctx, {
      key: "chrome",
      path: "/admin/settings/navigation",
      document,
      revision: form.revision,
      load: (shown) => navigationData(c, shown),
    });
  },
};

export default function Navigation({ data }: PageProps<NavigationData>) {
  const doc = data.document;
  const MenuSelect = (props: { name: "header" | "footer"; label: string }) => (
    <div class="field">
      <label for={`place-${props.name}`}>{props.label}</label>
      <select id={`place-${props.name}`} name={props.name}>
        <option value="">No menu</option>
        {data.menus.map((m) => (
          <option
            key={m.key}
            value={m.key}
            selected={doc.placements[props.name] === m.key}
          >
            {m.key}
          </option>
        ))}
      </select>
    </div>
  );
  return (
    <AdminShell shell={data.shell} title="Navigation">
      <DocumentMessages notice={data.notice} alert={data.alert} />
      <section class="card" aria-labelledby="menus-heading">
        <h2 id="menus-heading">Menus</h2>
        {data.menus.length === 0
          ? <p class="muted">No menu yet: make one below.</p>
          : (
            <ul>
              {data.menus.map((m) => (
                <li key={m.key}>
                  <a href={`/admin/settings/navigation/${m.key}`}>{m.key}</a>
                  {" "}
                  <span class="muted">
                    {m.items} links · labels in{" "}
                    {m.languages.join(", ") || "no language"}
                  </span>
                </li>
              ))}
            </ul>
          )}
        <form method="post" class="stack">
          <input type="hidden" name="_csrf" value={data.shell.csrfToken} />
          <input type="hidden" name="action" value="new-menu" />
          <label for="menu-key">New menu</label>
          {data.keyProblem && (
            <p class="field-error" id="menu-key-error">{data.keyProblem}</p>
          )}
          <input
            id="menu-key"
            name="key"
            required
            maxLength={64}
            placeholder="main"
            value={data.typedKey ?? ""}
            aria-invalid={data.keyProblem ? "true" : undefined}
            aria-describedby={data.keyProblem ? "menu-key-error" : undefined}
          />
          <button type="submit" class="secondary">Make menu</button>
        </form>
      </section>
      <form method="post" class="card stack" aria-labelledby="chrome-heading">
        <h2 id="chrome-heading">Header and footer</h2>
        <DocumentFormHead
          csrfToken={data.shell.csrfToken}
          revision={data.revision}
        />
        <FieldProblem
          problems={data.problems}
          path="placements"
          id="placements-error"
        />
        <MenuSelect name="header" label="Header menu" />
        <MenuSelect name="footer" label="Footer menu" />
        {data.languages.map((code) => (
          <div class="field" key={code}>
            <label for={`note-${code}`}>
              Footer note (<code>{code}</code>)
            </label>
            <FieldProblem
              problems={data.problems}
              path={`footer_note.${code}`}
              id={`note-${code}-error`}
            />
            <textarea
              id={`note-${code}`}
              name={`note.${code}`}
              rows={2}
              maxLength={500}
            >
              {doc.footer_note[code] ?? ""}
            </textarea>
          </div>
        ))}
        <p class="buttons">
          <button type="submit">Save</button>
        </p>
      </form>
      <p class="muted">
        What the template's regions hold is set under{" "}
        <a href="/admin/settings/regions">Regions</a>.
      </p>
    </AdminShell>
  );
}
