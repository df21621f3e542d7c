// GET/POST /admin/people: the site's members and their roles; invite someone, change a role.
import type { Context } from "hono";
import type { ShellData } from "../../../core/admin/shell.ts";
import { adminContext } from "../../../core/admin/context.ts";
import { type FieldProblem, formId } from "../../../core/admin/ids.ts";
import { listRoles } from "../../../core/access/roles.ts";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import {
  addMember,
  type PeopleRefusal,
  setMemberRole,
} from "../../../core/people/people.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";
import { page, type PageProps } from "../../../core/web/manifest.ts";
import CopyButton from "../../../islands/CopyButton.tsx";
import { AdminShell, openAdminPage } from "../_shell.tsx";
import { scrollRegion } from "../_table.tsx";

export const middleware = requireSignedIn;

interface PeopleData {
  title: string;
  shell: ShellData;
  members: {
    id: string;
    name: string;
    email: string;
    status: string;
    roleId: string;
  }[];
  roles: { id: string; name: string }[];
  invited?: { email: string; password: string | null };
  alert?: string;
  typed?: { email: string; name: string; role: string };
  /** A field of the invite form (`role`) or of a member's role form (`user`, `role`) that names nothing. */
  fieldError?: { field: string; message: string; userId?: string };
}

async function peopleData(
  c: Context<AppEnv>,
  extra: Partial<PeopleData> = {},
): Promise<PeopleData> {
  const { ctx, shell } = await openAdminPage(c, [{ label: "People" }]);
  const { db, clock } = ctx.services;
  const roles = await listRoles({
    db,
    clock,
    siteId: ctx.site.id,
    authority: ctx.authority,
  });
  if (!roles.ok) {
    refuse(403, "missing_permission", "Managing people needs role:manage");
  }
  const members = await db.selectFrom("site_members as m")
    .innerJoin("users as u", "u.id", "m.user_id")
    .select(["u.id", "u.display_name", "u.email", "u.status", "m.role_id"])
    .where("m.site_id", "=", ctx.site.id).orderBy("u.email").execute();
  return {
    title: "People",
    shell,
    members: members.map((m) => ({
      id: m.id,
      name: m.display_name,
      email: m.email,
      status: m.status,
      roleId: m.role_id,
    })),
    roles: roles.roles.map((r) => ({ id: r.id, name: r.name })),
    ...extra,
  };
}

function explain(refusal: PeopleRefusal): string {
  switch (refusal.code) {
    case "escalation_refused":
      return `You cannot give a role holding more than you hold: ${
        refusal.exceeds.join(", ")
      }`;
    case "member_exists":
      return "That person is already a member of this site";
    case "invalid_request":
      return refusal.message;
    case "last_manager":
      return "Someone must keep the right to manage people";
    case "not_found":
      return "No such person or role";
    default:
      return "Your role may not manage people";
  }
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return page(await peopleData(c));
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody();
    const ctx = await adminContext(c);
    const people = {
      db: ctx.services.db,
      clock: ctx.services.clock,
      siteId: ctx.site.id,
      authority: ctx.authority,
    };
    const refuseField = async (
      problem: FieldProblem,
      extra: Partial<PeopleData> = {},
    ) =>
      page(
        await peopleData(c, {
          alert: problem.message,
          fieldError: { field: problem.field, message: problem.message },
          ...extra,
        }),
        { status: 422 },
      );
    if (form.action === "role") {
      const user = formId(form, "user", "Choose a member from the list");
      if (!user.ok) return await refuseField(user);
      const role = formId(form, "role", "Choose a role from the list");
      if (!role.ok) {
        return await refuseField(role, {
          fieldError: {
            field: "role",
            message: role.message,
            userId: user.id,
          },
        });
      }
      const changed = await setMemberRole(people, {
        userId: user.id,
        roleId: role.id,
      });
      if (!changed.ok) {
        return page(await peopleData(c, { alert: explain(changed) }), {
          status: 422,
        });
      }
      return c.redirect("/admin/people", 303);
    }
    const typed = {
      email: String(form.email ?? ""),
      name: String(form.name ?? ""),
      role: String(form.role ?? ""),
    };
    const role = formId(form, "role", "Choose a role from the list");
    if (!role.ok) return await refuseField(role, { typed });
    const added = await addMember(people, {
      email: typed.email,
      displayName: typed.name,
      roleId: role.id,
    });
    if (!added.ok) {
      return page(await peopleData(c, { alert: explain(added), typed }), {
        status: added.code === "member_exists" ? 409 : 422,
      });
    }
    return page(
      await peopleData(c, {
        invited: { email: typed.email, password: added.createdPassword },
      }),
      { status: 201 },
    );
  },
};

export default function People({ data }: PageProps<PeopleData>) {
  const roleName = (id: string) =>
    data.roles.find((r) => r.id === id)?.name ?? "(own role)";
  const error = data.fieldError;
  // A role form's error shows beside that member's role; a malformed member is the alert alone.
  const memberError = (userId: string) =>
    error?.field === "role" && error.userId === userId ? error.message : null;
  const inviteError = error?.field === "role" && error.userId === undefined
    ? error.message
    : null;
  return (
    <AdminShell shell={data.shell} title="People">
      {data.alert && <p class="alert" role="alert">{data.alert}</p>}
      {data.invited && (
        <section class="card" aria-labelledby="invited-heading">
          <h2 id="invited-heading">{data.invited.email} can now sign in</h2>
          {data.invited.password
            ? (
              <>
                <p>
                  Give them this first password privately; it is shown only
                  once.
                </p>
                <p class="secret">
                  <code id="invited-password">{data.invited.password}</code>
                  <CopyButton targetId="invited-password" label="password" />
                </p>
              </>
            )
            : <p>They already had an account: they sign in with it.</p>}
        </section>
      )}
      <section class="card" aria-labelledby="members-heading">
        <h2 id="members-heading">Members</h2>
        <p>
          <a href="/admin/people/roles">Roles and permissions</a>: what each
          role may do, by model, field and language.
        </p>
        <div class="table-wrap" {...scrollRegion("Members table")}>
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
              </tr>
            </thead>
            <tbody>
              {data.members.map((m) => (
                <tr key={m.id}>
                  <td>
                    {m.name}
                    {m.status !== "active" && (
                      <span class="badge missing">{m.status}</span>
                    )}
                  </td>
                  <td>{m.email}</td>
                  <td>
                    <form method="post" class="inline">
                      <input
                        type="hidden"
                        name="_csrf"
                        value={data.shell.csrfToken}
                      />
                      <input type="hidden" name="action" value="role" />
                      <input type="hidden" name="user" value={m.id} />
                      <select
                        name="role"
                        aria-label={`Role of ${m.name}`}
                        aria-invalid={memberError(m.id) ? "true" : undefined}
                        aria-describedby={memberError(m.id)
                          ? `role-error-${m.id}`
                          : undefined}
                      >
                        {!data.roles.some((r) => r.id === m.roleId) && (
                          <option value={m.roleId} selected>
                            {roleName(m.roleId)}
                          </option>
                        )}
                        {data.roles.map((r) => (
                          <option value={r.id} selected={r.id === m.roleId}>
                            {r.name}
                          </option>
                        ))}
                      </select>
                      <button type="submit" class="secondary">Change</button>
                      {memberError(m.id) && (
                        <p class="field-error" id={`role-error-${m.id}`}>
                          {memberError(m.id)}
                        </p>
                      )}
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section class="card" aria-labelledby="invite-heading">
        <h2 id="invite-heading">Invite someone</h2>
        <form method="post" class="stack">
          <input type="hidden" name="_csrf" value={data.shell.csrfToken} />
          <input type="hidden" name="action" value="invite" />
          <label for="invite-email">Email</label>
          <input
            id="invite-email"
            name="email"
            type="email"
            required
            value={data.typed?.email ?? ""}
          />
          <label for="invite-name">Name</label>
          <input id="invite-name" name="name" value={data.typed?.name ?? ""} />
          <label for="invite-role">Role</label>
          <select
            id="invite-role"
            name="role"
            aria-invalid={inviteError ? "true" : undefined}
            aria-describedby={inviteError ? "invite-role-error" : undefined}
          >
            {data.roles.map((r) => (
              <option value={r.id} selected={data.typed?.role === r.id}>
                {r.name}
              </option>
            ))}
          </select>
          {inviteError && (
            <p class="field-error" id="invite-role-error">{inviteError}</p>
          )}
          <button type="submit">Invite</button>
        </form>
      </section>
    </AdminShell>
  );
}
