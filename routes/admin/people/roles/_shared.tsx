// The role pages' shared parts: the role service context of the signed-in person, refusals in words,
// and the permission matrix form.
import type { AdminContext } from "../../../../core/admin/context.ts";
import { MATRIX, type MatrixRow } from "../../../../core/admin/roles_form.ts";
import type {
  RoleContext,
  RoleRefusal,
} from "../../../../core/access/roles.ts";
import type { LanguageAction } from "../../../../core/access/permissions.ts";
import { scrollRegion } from "../../_table.tsx";

/** The role service context: the person's role is the ceiling of what a role may grant. */
export function roleContext(ctx: AdminContext): RoleContext {
  return {
    db: ctx.services.db,
    clock: ctx.services.clock,
    siteId: ctx.site.id,
    authority: ctx.authority,
  };
}

/** A role refusal as a sentence. */
export function roleRefusalText(refusal: RoleRefusal): string {
  switch (refusal.code) {
    case "missing_permission":
      return "Your role may not manage roles (role:manage)";
    case "invalid_request":
    case "invalid_permissions":
      return refusal.reasons.map((r) => `${r.path}: ${r.message}`).join("; ");
    case "escalation_refused":
      return `A role cannot grant what your own role does not hold: ${
        refusal.exceeds.join(", ")
      }`;
    case "role_name_taken":
      return "Another role of the site has this name";
    case "not_found":
      return "No such role";
    case "role_seeded":
      return "A seeded role can be changed but never deleted";
    case "role_in_use":
      return `${refusal.members} people hold this role: give them another role first`;
    case "role_last_access_granter":
      return "This is the last role that may manage people and roles: keep it";
    case "role_in_access_rule":
      return `Backend access names this role (${
        refusal.access_rules.length + refusal.saved_queries.length
      } rules and routes): remove it there first`;
  }
}

/** Props of {@link PermissionMatrix}. */
export interface PermissionMatrixProps {
  rows: MatrixRow[];
  system: string[];
  languages: string[];
  limits: Partial<Record<LanguageAction, string[]>>;
}

const ACTION_LABELS: Record<string, string> = {
  "read:own": "read own",
  "update:own": "update own",
};

/** The matrix: models by actions with field limits, system permissions, language limits. */
export function PermissionMatrix(props: PermissionMatrixProps) {
  return (
    <>
      <section class="card" aria-labelledby="matrix-heading">
        <h2 id="matrix-heading">Content</h2>
        <p class="muted">
          Tick what the role may do with each model's entries; "All models"
          applies to every model, now and later. Readable and writable fields
          limit a model to the field keys listed (empty: every field).
        </p>
        <div class="table-wrap" {...scrollRegion("Permissions by model table")}>
          <table class="matrix">
            <thead>
              <tr>
                <th scope="col">Model</th>
                {MATRIX.actions.map((a) => (
                  <th scope="col" key={a}>{ACTION_LABELS[a] ?? a}</th>
                ))}
                <th scope="col">Readable fields</th>
                <th scope="col">Writable fields</th>
              </tr>
            </thead>
            <tbody>
              {props.rows.map((row) => (
                <tr key={row.key}>
                  <th scope="row">{row.label}</th>
                  {MATRIX.actions.map((a) => (
                    <td key={a}>
                      <input
                        type="checkbox"
                        name={`m.${row.key}`}
                        value={a}
                        checked={row.actions.includes(a)}
                        aria-label={`${row.label}: ${ACTION_LABELS[a] ?? a}`}
                      />
                    </td>
                  ))}
                  <td>
                    <input
                      name={`fr.${row.key}`}
                      value={row.read}
                      aria-label={`${row.label}: readable fields`}
                      placeholder="every field"
                    />
                  </td>
                  <td>
                    <input
                      name={`fw.${row.key}`}
                      value={row.write}
                      aria-label={`${row.label}: writable fields`}
                      placeholder="every field"
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section class="card" aria-labelledby="system-heading">
        <h2 id="system-heading">Site</h2>
        <fieldset class="checks">
          <legend>Site-wide permissions</legend>
          {MATRIX.system.map((s) => (
            <label key={s}>
              <input
                type="checkbox"
                name="s"
                value={s}
                checked={props.system.includes(s)}
              />{" "}
              <code>{s}</code>
            </label>
          ))}
        </fieldset>
      </section>
      <section class="card" aria-labelledby="languages-heading">
        <h2 id="languages-heading">Languages</h2>
        <p class="muted">
          Limit an action to some languages; with none ticked it applies to
          every language.
        </p>
        <div class="limit-grid">
          {MATRIX.languageActions.map((action) => (
            <fieldset class="checks" key={action}>
              <legend>{action}</legend>
              {props.languages.map((code) => (
                <label key={code}>
                  <input
                    type="checkbox"
                    name={`l.${action}`}
                    value={code}
                    checked={props.limits[action]?.includes(code) ?? false}
                  />{" "}
                  {code}
                </label>
              ))}
            </fieldset>
          ))}
        </div>
      </section>
    </>
  );
}
