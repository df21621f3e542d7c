// GET/POST /admin/content/{model}/{id}/versions?lang=..: one language's versions, a side-by-side diff, restore.
import { isId } from "../../../../../core/admin/ids.ts";
import type { Context } from "hono";
import { decide, readableFields } from "../../../../../core/access/decide.ts";
import { adminContext } from "../../../../../core/admin/context.ts";
import { loadEditor } from "../../../../../core/admin/editor.ts";
import type { FieldControl } from "../../../../../core/admin/entry_form.ts";
import { refusalMessage } from "../../../../../core/admin/messages.ts";
import { modelBySlug } from "../../../../../core/admin/models.ts";
import type { ShellData } from "../../../../../core/admin/shell.ts";
import { requireSignedIn } from "../../../../../core/auth/session_middleware.ts";
import { restoreVersion } from "../../../../../core/entries/mod.ts";
import {
  keepNotes,
  policyLines,
  policyRefusalText,
  underPolicies,
} from "../../../../../core/admin/policy_checks.ts";
import { ERROR_STATUS } from "../../../../../core/manage/contract/errors.ts";
import type { AppEnv } from "../../../../../core/web/env.ts";
import { page, type PageProps } from "../../../../../core/web/manifest.ts";
import { AdminShell, openAdminPage, when } from "../../../_shell.tsx";
import { Diff } from "../_diff.tsx";

export const middleware = requireSignedIn;

interface VersionRow {
  id: string;
  number: number;
  createdAt: string;
  by: string;
  current: boolean;
  published: boolean;
}

interface VersionsData {
  title: string;
  shell: ShellData;
  base: string;
  locale: string;
  currentVersionId: string | null;
  versions: VersionRow[];
  controls: FieldControl[];
  compare: {
    left: VersionRow;
    right: VersionRow;
    leftValues: Record<string, unknown>;
    rightValues: Record<string, unknown>;
  } | null;
  mayRestore: boolean;
  alert?: string;
}

function byLabel(created: unknown): string {
  const snap = (typeof created === "string" ? JSON.parse(created) : created) as
    | Record<string, string>
    | null;
  if (!snap) return "";
  return snap.email ?? snap.person_email ?? snap.name ?? snap.kind ?? "";
}

async function versionsData(
  c: Context<AppEnv>,
  url: URL,
  alert?: string,
): Promise<VersionsData> {
  const { ctx, shell } = await openAdminPage(c, []);
  const model = await modelBySlug(ctx, c.req.param("model")!);
  const editor = await loadEditor(
    ctx,
    model,
    c.req.param("id")!,
    url.searchParams.get("lang") ?? "",
  );
  const base = `/admin/content/${model.slug}/${editor.groupId}`;
  shell.crumbs.push(
    { label: model.name, href: `/admin/content/${model.slug}` },
    { label: editor.title, href: `${base}?lang=${editor.locale}` },
    { label: "Versions" },
  );
  const { db } = ctx.services;
  const rows = await db.selectFrom("entry_versions")
    .select(["id", "number", "created_at", "created_by", "fields"])
    .where("site_id", "=", ctx.site.id).where("group_id", "=", editor.groupId)
    .where("locale", "=", editor.locale).orderBy("number", "desc").limit(50)
    .execute();
  const versions: VersionRow[] = rows.map((r) => ({
    id: r.id,
    number: r.number,
    createdAt: new Date(r.created_at).toISOString(),
    by: byLabel(r.created_by),
    current: r.id === editor.currentVersionId,
    published: r.id === editor.publishedVersionId,
  }));
  const readable = new Set(
    readableFields(ctx.authority, model.id, model.fields.map((f) => f.key)),
  );
  const valuesOf = (id: string) => {
    const fields = (rows.find((r) => r.id === id)?.fields ?? {}) as Record<
      string,
      unknown
    >;
    return Object.fromEntries(
      Object.entries(fields).filter(([k]) => readable.has(k)),
    );
  };
  const leftId = url.searchParams.get("a") ?? versions[1]?.id;
  const rightId = url.searchParams.get("b") ?? versions[0]?.id;
  const left = versions.find((v) => v.id === leftId);
  const right = versions.find((v) => v.id === rightId);
  return {
    title: `Versions of ${editor.title}`,
    shell,
    base,
    locale: editor.locale,
    currentVersionId: editor.currentVersionId,
    versions,
    controls: editor.controls,
    compare: left && right
      ? {
        left,
        right,
        leftValues: valuesOf(left.id),
        rightValues: valuesOf(right.id),
      }
      : null,
    mayRestore: decide(ctx.authority, {
      action: "entries.restore_version",
      model: model.id,
      languages: [editor.locale],
    }).ok && !editor.trashed,
    alert,
  };
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return page(await versionsData(c, new URL(c.req.url)));
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody();
    const ctx = await adminContext(c);
    const model = await modelBySlug(ctx, c.req.param("model")!);
    const groupId = c.req.param("id")!;
    const expected = String(form.expected_current_version_id ?? "");
    const versionId = String(form.version_id ?? "");
    const { db } = ctx.services;
    const version = isId(versionId)
      ? await db.selectFrom("entry_versions").select(["locale", "fields"])
        .where("site_id", "=", ctx.site.id).where("group_id", "=", groupId)
        .where("id", "=", versionId).executeTakeFirst()
      : undefined;
    const checked = await underPolicies(ctx, {
      kind: "restore",
      groupId,
      modelId: model.id,
      locale: version?.locale ?? null,
      values: {
        pinnedVersionId: expected === "" ? null : expected,
        after: (version?.fields ?? {}) as Record<string, unknown>,
      },
    }, (lifecycle, transform) =>
      restoreVersion(lifecycle, {
        group_id: groupId,
        version_id: versionId,
        expected_current_version_id: expected === "" ? null : expected,
        overrides: transform ?? undefined,
      }));
    const lang = String(form.lang ?? "");
    const url = new URL(c.req.url);
    url.searchParams.set("lang", lang);
    if (!checked.ok) {
      return page(
        await versionsData(c, url, policyRefusalText(checked)),
        { status: checked.status },
      );
    }
    const restored = checked.outcome;
    if (restored.ok) {
      const notes = await keepNotes(ctx, policyLines(checked.results));
      return c.redirect(
        `/admin/content/${model.slug}/${groupId}?lang=${
          encodeURIComponent(lang)
        }&done=restored_version${notes ? `&notes=${notes}` : ""}`,
        303,
      );
    }
    const status = (ERROR_STATUS as Record<string, number>)[restored.code] ??
      422;
    return page(
      await versionsData(c, url, refusalMessage(restored.code)),
      { status: status as 422 },
    );
  },
};

export default function Versions({ data }: PageProps<VersionsData>) {
  return (
    <AdminShell shell={data.shell} title={data.title}>
      {data.alert && <p class="alert" role="alert">{data.alert}</p>}
      <section class="card" aria-labelledby="versions-heading">
        <h2 id="versions-heading">Versions in {data.locale}</h2>
        <form method="get" id="compare">
          <input type="hidden" name="lang" value={data.locale} />
        </form>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Saved</th>
                <th scope="col">By</th>
                <th scope="col">Compare from</th>
                <th scope="col">Compare to</th>
                <th scope="col">
                  <span class="visually-hidden">Restore</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.versions.map((v) => (
                <tr key={v.id}>
                  <td>
                    #{v.number}{" "}
                    {v.current && <span class="badge draft">current</span>}{" "}
                    {v.published && (
                      <span class="badge published">published</span>
                    )}
                  </td>
                  <td>{when(v.createdAt)}</td>
                  <td>{v.by}</td>
                  <td>
                    <input
                      type="radio"
                      name="a"
                      form="compare"
                      value={v.id}
                      checked={data.compare?.left.id === v.id}
                      aria-label={`Compare from version ${v.number}`}
                    />
                  </td>
                  <td>
                    <input
                      type="radio"
                      name="b"
                      form="compare"
                      value={v.id}
                      checked={data.compare?.right.id === v.id}
                      aria-label={`Compare to version ${v.number}`}
                    />
                  </td>
                  <td>
                    {data.mayRestore && !v.current && (
                      <form method="post" class="inline">
                        <input
                          type="hidden"
                          name="_csrf"
                          value={data.shell.csrfToken}
                        />
                        <input type="hidden" name="lang" value={data.locale} />
                        <input type="hidden" name="version_id" value={v.id} />
                        <input
                          type="hidden"
                          name="expected_current_version_id"
                          value={data.currentVersionId ?? ""}
                        />
                        <button
                          type="submit"
                          class="secondary"
                          aria-label={`Restore version ${v.number}`}
                        >
                          Restore
                        </button>
                      </form>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p>
          <button type="submit" form="compare" class="secondary">
            Compare the chosen versions
          </button>
        </p>
      </section>
      {data.compare && (
        <section class="card" aria-labelledby="diff-heading">
          <h2 id="diff-heading">
            Version #{data.compare.left.number} and #{data.compare.right.number}
          </h2>
          <Diff
            controls={data.controls}
            left={data.compare.leftValues}
            right={data.compare.rightValues}
            leftLabel={`#${data.compare.left.number}`}
            rightLabel={`#${data.compare.right.number}`}
          />
        </section>
      )}
    </AdminShell>
  );
}
