// GET/POST /admin/settings/languages: the site's languages, adding one, and the fallback rules
// readers get (the `language-fallback` settings document).
import type { Context } from "hono";
import { adminContext } from "../../../core/admin/context.ts";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import {
  addSiteLanguage,
  LANGUAGE_CODE_PATTERN,
  listSiteLanguages,
} from "../../../core/sites/languages.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { page, type PageProps } from "../../../core/web/manifest.ts";
import { AdminShell } from "../_shell.tsx";
import {
  codesOf,
  type DocumentData,
  DocumentFormHead,
  DocumentMessages,
  FieldProblem,
  openDocumentPage,
  requireSettingsWrite,
  saveAndAnswer,
} from "./_document.tsx";

export const middleware = requireSignedIn;

interface LanguagesData extends DocumentData<"language-fallback"> {
  languages: { code: string; isDefault: boolean }[];
  typedCode?: string;
  codeProblem?: string;
}

async function languagesData(
  c: Context<AppEnv>,
  extra: Partial<LanguagesData> = {},
): Promise<LanguagesData> {
  const { ctx, data } = await openDocumentPage(
    c,
    "language-fallback",
    "Languages",
  );
  const languages = await listSiteLanguages(ctx.services.db, ctx.site.id);
  return {
    ...data,
    notice: c.req.query("done") === "added"
      ? `Language ${c.req.query("code") ?? ""} added.`
      : data.notice,
    languages: languages.map((l) => ({
      code: l.code,
      isDefault: l.is_default,
    })),
    ...extra,
  };
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return page(await languagesData(c));
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody();
    const ctx = await adminContext(c);
    requireSettingsWrite(ctx, "language-fallback");
    if (form.action === "add") {
      const code = String(form.code ?? "").trim();
      if (!LANGUAGE_CODE_PATTERN.test(code)) {
        return page(
          await languagesData(c, {
            typedCode: code,
            codeProblem: "Expected a language code such as fr or de-AT",
          }),
          { status: 422 },
        );
      }
      const added = await addSiteLanguage(
        {
          db: ctx.services.db,
          clock: ctx.services.clock,
          siteId: ctx.site.id,
          actor: ctx.actor,
        },
        { code },
      );
      if (!added.ok) {
        return page(
          await languagesData(c, {
            typedCode: code,
            codeProblem: `The site already has ${code}`,
          }),
          { status: 409 },
        );
      }
      return c.redirect(
        `/admin/settings/languages?done=added&code=${encodeURIComponent(code)}`,
        303,
      );
    }
    const languages = await listSiteLanguages(ctx.services.db, ctx.site.id);
    const chains: Record<string, string[]> = {};
    for (const language of languages) {
      const chain = codesOf(form[`chain.${language.code}`]);
      if (chain.length > 0) chains[language.code] = chain;
    }
    const document = {
      policy: form.policy === "strict" ? "strict" : "fallback",
      chains,
    } as const;
    return saveAndAnswer(c, ctx, {
      key: "language-fallback",
      path: "/admin/settings/languages",
      document,
      revision: form.revision,
      load: (shown) => languagesData(c, shown),
    });
  },
};

export default function Languages({ data }: PageProps<LanguagesData>) {
  const doc = data.document;
  return (
    <AdminShell shell={data.shell} title="Languages">
      <DocumentMessages notice={data.notice} alert={data.alert} />
      <section class="card" aria-labelledby="languages-heading">
        <h2 id="languages-heading">Languages of this site</h2>
        <ul>
          {data.languages.map((l) => (
            <li key={l.code}>
              <code>{l.code}</code>
              {l.isDefault && <span class="badge">default</span>}
            </li>
          ))}
        </ul>
        <form method="post" class="stack">
          <input type="hidden" name="_csrf" value={data.shell.csrfToken} />
          <input type="hidden" name="action" value="add" />
          <label for="language-code">Add a language</label>
          {data.codeProblem && (
            <p class="field-error" id="language-code-error">
              {data.codeProblem}
            </p>
          )}
          <input
            id="language-code"
            name="code"
            required
            maxLength={64}
            value={data.typedCode ?? ""}
            aria-invalid={data.codeProblem ? "true" : undefined}
            aria-describedby={data.codeProblem
              ? "language-code-error language-code-hint"
              : "language-code-hint"}
          />
          <p class="hint" id="language-code-hint">
            A code such as <code>fr</code> or{" "}
            <code>de-AT</code>. Entries get it as a new tab; nothing is
            translated for you.
          </p>
          <button type="submit">Add language</button>
        </form>
      </section>
      <section class="card" aria-labelledby="fallback-heading">
        <h2 id="fallback-heading">When a translation is missing</h2>
        <form method="post" class="stack">
          <DocumentFormHead
            csrfToken={data.shell.csrfToken}
            revision={data.revision}
          />
          <fieldset>
            <legend>Readers asking for a language an entry lacks get</legend>
            <label>
              <input
                type="radio"
                name="policy"
                value="fallback"
                checked={doc.policy === "fallback"}
              />{" "}
              the first language of its fallback chain the entry has
            </label>
            <label>
              <input
                type="radio"
                name="policy"
                value="strict"
                checked={doc.policy === "strict"}
              />{" "}
              nothing (strict: only the language asked for)
            </label>
          </fieldset>
          {data.languages.map((l) => {
            const path = `chains.${l.code}`;
            const errorId = `chain-${l.code}-error`;
            const hintId = `chain-${l.code}-hint`;
            const invalid = data.problems.some((p) =>
              p.path === path || p.path.startsWith(`${path}.`)
            );
            return (
              <div class="field" key={l.code}>
                <label for={`chain-${l.code}`}>
                  Fallbacks of <code>{l.code}</code>
                </label>
                <FieldProblem
                  problems={data.problems}
                  path={path}
                  id={errorId}
                />
                <input
                  id={`chain-${l.code}`}
                  name={`chain.${l.code}`}
                  value={(doc.chains[l.code] ?? []).join(", ")}
                  aria-invalid={invalid ? "true" : undefined}
                  aria-describedby={invalid ? `${errorId} ${hintId}` : hintId}
                />
                <p class="hint" id={hintId}>
                  Languages to try in order, separated by commas; the default
                  language ends every chain.
                </p>
              </div>
            );
          })}
          <button type="submit">Save fallbacks</button>
        </form>
      </section>
    </AdminShell>
  );
}
