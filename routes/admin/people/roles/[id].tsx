// GET/POST /admin/people/roles/{id}: one role's name and permission matrix; save or delete it.
import type { Context } from "hono";
import type { ShellData } from "../../../../core/admin/shell.ts";
import {
  deleteRole,
  getRole,
  updateRole,
} from "../../../../core/access/roles.ts";
import type {
  LanguageAction,
  Permissions,
} from "../../../../core/access/permissions.ts";
import { adminContext } from "../../../../core/admin/context.ts";
import {
  languageLimits,
  type MatrixRow,
  matrixRows,
  permissionsFromForm,
} from "../../../../core/admin/roles_form.ts";
import { requireSignedIn } from "../../../../core/auth/session_middleware.ts";
import { listModels } from "../../../../core/models/model_reads.ts";
import { listSiteLanguages } from "../../../../core/sites/languages.ts";
import type { AppEnv } from "../../../../core/web/env.ts";
import { refuse } from "../../../../core/web/errors.ts";
import { page, type PageProps } from "../../../../core/web/manifest.ts";
import { AdminShell, openAdminPage } from "../../_shell.tsx";
import { PermissionMatrix, roleContext, roleRefusalText } from "./_shared.tsx";

export const middleware = requireSignedIn;

interface RoleData {
  title: string;
  shell: ShellData;
  id: string;
  name: string;
  seeded: boolean;
  rows: MatrixRow[];
  system: string[];
  languages: string[];
  limits: Partial<Record<LanguageAction, string[]>>;
  notice?: string;
  alert?: string;
}

async function roleData(
  c: Context<AppEnv>,
  typed?: { name: string; permissions: unknown },
  extra: Partial<RoleData> = {},
): Promise<RoleData> {
  const id = c.req.param("id")!;
  const { ctx, shell } = await openAdminPage(c, [
    { label: "People", href: "/admin/people" },
    { label: "Roles", href: "/admin/people/roles" },
    { label: "Role" },
  ]);
  const found = await getRole(roleContext(ctx), id);
  if (!found.ok) {
    if (found.code === "not_found") refuse(404, "not_found", "No such role");
    refuse(403, "missing_permission", "Managing roles needs role:manage");
  }
  const { db, clock } = ctx.services;
  const models = await listModels({ db, clock, siteId: ctx.site.id });
  // After a refusal the page shows what was typed, not what is stored.
  const shown = (typed?.permissions ?? found.role.permissions) as Permissions;
  shell.crumbs[shell.crumbs.length - 1] = { label: found.role.name };
  return {
    title: `Role: ${found.role.name}`,
    shell,
    id: found.role.id,
    name: typed?.name ?? found.role.name,
    seeded: found.role.seeded,
    rows: matrixRows(
      shown,
      models.map((m) => ({ id: m.id, name: m.name })),
    ),
    system: [...(shown.system ?? [])],
    languages: (await listSiteLanguages(db, ctx.site.id)).map((l) => l.code),
    limits: languageLimits(shown),
    notice: c.req.query("done") === "saved"
      ? "Saved. People holding this role act with it from their next request."
      : c.req.query("done") === "created"
      ? "Role created: tick what it may do, then save."
      : undefined,
    ...extra,
  };
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return page(await roleData(c));
  },

  async POST(c: Context<AppEnv>) {
    const id = c.req.param("id")!;
    const form = await c.req.parseBody({ all: true });
    const ctx = await adminContext(c);
    if (form.action === "delete") {
      const deleted = await deleteRole(roleContext(ctx), id);
      if (!deleted.ok) {
        return page(
          await roleData(c, undefined, { alert: roleRefusalText(deleted) }),
          { status: deleted.code === "not_found" ? 404 : 409 },
        );
      }
      return c.redirect("/admin/people/roles", 303);
    }
    const { db, clock } = ctx.services;
    const models = await listModels({ db, clock, siteId: ctx.site.id });
    const permissions = permissionsFromForm(form, models.map((m) => m.id));
    const name = String(form.name ?? "");
    const saved = await updateRole(roleContext(ctx), id, { name, permissions });
    if (!saved.ok) {
      return page(
        await roleData(c, { name, permissions }, {
          alert: roleRefusalText(saved),
        }),
        {
          status: saved.code === "escalation_refused"
            ? 403
            : saved.code === "role_name_taken"
            ? 409
            : 422,
        },
      );
    }
    return c.redirect(`/admin/people/roles/${id}?done=saved`, 303);
  },
};

export default function RolePage({ data }: PageProps<RoleData>) {
  return (
    <AdminShell shell={data.shell} title={data.title}>
      {data.notice && <p class="notice" role="status">{data.notice}</p>}
      {data.alert && <p class="alert" role="alert">{data.alert}</p>}
      <form method="post" class="stack" id="role-form">
        <input type="hidden" name="_csrf" value={data.shell.csrfToken} />
        <section class="card" aria-labelledby="name-heading">
          <h2 id="name-heading">Name</h2>
          <label for="role-name">Role name</label>
          <input
            id="role-name"
            name="name"
            required
            maxLength={80}
            value={data.name}
          />
        </section>
        <PermissionMatrix
          rows={data.rows}
          system={data.system}
          languages={data.languages}
          limits={data.limits}
        />
        <p class="buttons">
          <button type="submit">Save role</button>
        </p>
      </form>
      {!data.seeded && (
        <section class="card" aria-labelledby="delete-heading">
          <h2 id="delete-heading">Delete this role</h2>
          <p class="muted">Only a role nobody holds can be deleted.</p>
          <form method="post">
            <input type="hidden" name="_csrf" value={data.shell.csrfToken} />
            <input type="hidden" name="action" value="delete" />
            <button type="submit" class="danger">Delete role</button>
          </form>
        </section>
      )}
    </AdminShell>
  );
}
