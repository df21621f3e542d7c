// GET/POST /admin/people/roles: the site's roles, who holds them, and a new role (empty or a copy).
import type { Context } from "hono";
import type { ShellData } from "../../../../core/admin/shell.ts";
import { createRole, listRoles } from "../../../../core/access/roles.ts";
import { optionalFormId } from "../../../../core/admin/ids.ts";
import { adminContext } from "../../../../core/admin/context.ts";
import { requireSignedIn } from "../../../../core/auth/session_middleware.ts";
import type { AppEnv } from "../../../../core/web/env.ts";
import { refuse } from "../../../../core/web/errors.ts";
import { page, type PageProps } from "../../../../core/web/manifest.ts";
import { AdminShell, openAdminPage } from "../../_shell.tsx";
import { roleContext, roleRefusalText } from "./_shared.tsx";
import { scrollRegion } from "../../_table.tsx";

export const middleware = requireSignedIn;

interface RolesData {
  title: string;
  shell: ShellData;
  roles: { id: string; name: string; seeded: boolean; members: number }[];
  alert?: string;
  typed?: { name: string; from: string };
  /** Why the "Start from" choice names no role of this site. */
  fromError?: string;
}

async function rolesData(
  c: Context<AppEnv>,
  extra: Partial<RolesData> = {},
): Promise<RolesData> {
  const { ctx, shell } = await openAdminPage(c, [
    { label: "People", href: "/admin/people" },
    { label: "Roles" },
  ]);
  const roles = await listRoles(roleContext(ctx));
  if (!roles.ok) {
    refuse(403, "missing_permission", "Managing roles needs role:manage");
  }
  const held = await ctx.services.db.selectFrom("site_members")
    .select(["role_id", (eb) => eb.fn.countAll<number>().as("n")])
    .where("site_id", "=", ctx.site.id).groupBy("role_id").execute();
  return {
    title: "Roles",
    shell,
    roles: roles.roles.map((r) => ({
      id: r.id,
      name: r.name,
      seeded: r.seeded,
      members: Number(held.find((h) => h.role_id === r.id)?.n ?? 0),
    })),
    ...extra,
  };
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return page(await rolesData(c));
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody();
    const ctx = await adminContext(c);
    const typed = {
      name: String(form.name ?? ""),
      from: String(form.from ?? ""),
    };
    const roles = await listRoles(roleContext(ctx));
    const from = optionalFormId(
      form,
      "from",
      "Choose a role to start from, or no permissions",
    );
    const source = from.ok && from.id !== null && roles.ok
      ? roles.roles.find((r) => r.id === from.id)
      : undefined;
    if (!from.ok || (from.id !== null && !source)) {
      const message = from.ok
        ? "Choose a role to start from, or no permissions"
        : from.message;
      return page(
        await rolesData(c, { alert: message, fromError: message, typed }),
        { status: 422 },
      );
    }
    const created = await createRole(roleContext(ctx), {
      name: typed.name,
      permissions: source?.permissions ?? { models: {}, system: [] },
    });
    if (!created.ok) {
      return page(
        await rolesData(c, { alert: roleRefusalText(created), typed }),
        { status: created.code === "role_name_taken" ? 409 : 422 },
      );
    }
    return c.redirect(
      `/admin/people/roles/${created.role.id}?done=created`,
      303,
    );
  },
};

export default function Roles({ data }: PageProps<RolesData>) {
  return (
    <AdminShell shell={data.shell} title="Roles">
      {data.alert && <p class="alert" role="alert">{data.alert}</p>}
      <section class="card" aria-labelledby="roles-heading">
        <h2 id="roles-heading">Roles of this site</h2>
        <div class="table-wrap" {...scrollRegion("Roles of this site table")}>
          <table>
            <thead>
              <tr>
                <th scope="col">Role</th>
                <th scope="col">People</th>
                <th scope="col">Kind</th>
              </tr>
            </thead>
            <tbody>
              {data.roles.map((r) => (
                <tr key={r.id}>
                  <td>
                    <a href={`/admin/people/roles/${r.id}`}>{r.name}</a>
                  </td>
                  <td>{r.members}</td>
                  <td>{r.seeded ? "Seeded (cannot be deleted)" : "Custom"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section class="card" aria-labelledby="new-heading">
        <h2 id="new-heading">New role</h2>
        <form method="post" class="stack">
          <input type="hidden" name="_csrf" value={data.shell.csrfToken} />
          <label for="role-name">Name</label>
          <input
            id="role-name"
            name="name"
            required
            maxLength={80}
            value={data.typed?.name ?? ""}
          />
          <label for="role-from">Start from</label>
          <select
            id="role-from"
            name="from"
            aria-invalid={data.fromError ? "true" : undefined}
            aria-describedby={data.fromError ? "role-from-error" : undefined}
          >
            <option value="">No permissions</option>
            {data.roles.map((r) => (
              <option value={r.id} selected={data.typed?.from === r.id}>
                A copy of {r.name}
              </option>
            ))}
          </select>
          {data.fromError && (
            <p class="field-error" id="role-from-error">{data.fromError}</p>
          )}
          <button type="submit">Create role</button>
        </form>
      </section>
    </AdminShell>
  );
}
