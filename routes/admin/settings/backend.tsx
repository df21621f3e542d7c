// GET/POST /admin/settings/backend: who may call each generated-backend operation of each model
// (access rules), and the saved queries the backend serves on routes (MOD-031). Both
// are model configuration, so the page needs model:apply. See docs/backend-access.md.
import type { Context } from "hono";
import { type ComponentChildren, Fragment } from "preact";
import { adminContext } from "../../../core/admin/context.ts";
import { formList, one } from "../../../core/admin/form_values.ts";
import { mayApplyModels } from "../../../core/admin/model_editor.ts";
import type { AdminContext } from "../../../core/admin/context.ts";
import type { ShellData } from "../../../core/admin/shell.ts";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import {
  accessOfModels,
  type AccessRule,
  type Audience,
  AUDIENCES,
  BACKEND_OPERATIONS,
  type BackendContext,
  type BackendOperation,
  type InputIssue,
  modelAccessInput,
  putModelAccess,
} from "../../../core/backend/access.ts";
import { queryColumns } from "../../../core/backend/columns.ts";
import {
  createSavedQuery,
  createSavedQueryInput,
  deleteSavedQuery,
  getSavedQuery,
  listSavedQueries,
  SAVED_QUERY_LIMITS,
  SAVED_QUERY_ROUTE_BASE,
  type SavedQuery,
  type SavedQueryRefusal,
  updateSavedQuery,
  updateSavedQueryInput,
} from "../../../core/backend/saved_queries.ts";
import { listModels } from "../../../core/models/model_reads.ts";
import type { FieldDefinition } from "../../../core/models/field_types.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";
import { page, type PageProps } from "../../../core/web/manifest.ts";
import { AdminShell, openAdminPage } from "../_shell.tsx";

export const middleware = requireSignedIn;

const PATH = "/admin/settings/backend";

/** How the page names each audience. */
const AUDIENCE_LABELS: Record<Audience, string> = {
  anonymous: "Anyone (public)",
  session: "Signed-in members",
  service: "Service bearer only",
};

/** What each generated operation does, beside its name. */
const OPERATION_LABELS: Record<BackendOperation, string> = {
  findMany: "list entries",
  findManyPaginated: "list entries by page",
  findUnique: "read one entry",
  create: "create an entry",
  update: "change an entry",
  delete: "delete an entry",
};

/** The names of a saved query's parts as the form labels them, for problems by path. */
const PART_LABELS: Record<string, string> = {
  model_id: "Model",
  name: "Name",
  slug: "Slug",
  select: "Columns",
  filter: "Filters",
  order_by: "Order",
  take: "Rows per page",
  route: "Route",
};

/** A column of a model as the form lists it. */
interface ColumnView {
  key: string;
  type: string;
  private: boolean;
}

/** A model with its columns and its access rules. */
interface ModelView {
  id: string;
  name: string;
  slug: string;
  columns: ColumnView[];
  access: Record<BackendOperation, AccessRule>;
}

/** A rule as the form shows it (stored, or as typed before a refusal). */
interface RuleShown {
  audience: Audience;
  roles: string[];
}

/** The saved-query form's values, as text: the stored query's or what was typed. */
interface QueryForm {
  /** Set while editing a stored query. */
  id?: string;
  modelId: string;
  name: string;
  slug: string;
  columns: string;
  filters: string;
  order: string;
  take: string;
  audience: "" | Audience;
  roles: string[];
}

/** A refusal shown at the top of the page. */
interface Alert {
  message: string;
  items: string[];
  /** Where the form it concerns is. */
  href?: string;
}

interface BackendData {
  title: string;
  shell: ShellData;
  csrfToken: string;
  models: ModelView[];
  roles: { id: string; name: string }[];
  queries: SavedQuery[];
  form: QueryForm;
  notice?: string;
  alert?: Alert;
  /** The access rules a refused save posted, kept for its model's form. */
  typedAccess?: { modelId: string; rules: Record<BackendOperation, RuleShown> };
}

/** A model's columns as the form lists them. */
function columnViews(fields: readonly FieldDefinition[]): ColumnView[] {
  return [...queryColumns(fields).values()].map((col) => ({
    key: col.key,
    type: col.type,
    private: col.private,
  }));
}

function requireModelApply(ctx: AdminContext): void {
  if (!mayApplyModels(ctx)) {
    refuse(
      403,
      "missing_permission",
      "Backend access and saved queries need model:apply",
    );
  }
}

function backendContext(ctx: AdminContext): BackendContext {
  return {
    db: ctx.services.db,
    clock: ctx.services.clock,
    siteId: ctx.site.id,
  };
}

const EMPTY_FORM: QueryForm = {
  modelId: "",
  name: "",
  slug: "",
  columns: "id",
  filters: "",
  order: "",
  take: String(SAVED_QUERY_LIMITS.defaultTake),
  audience: "",
  roles: [],
};

/** A stored query as the form shows it. */
function formOf(query: SavedQuery): QueryForm {
  return {
    id: query.id,
    modelId: query.model_id,
    name: query.name,
    slug: query.slug,
    columns: query.select.join(", "),
    filters: Object.entries(query.filter).map(([k, v]) => `${k}=${v}`).join(
      "\n",
    ),
    order: query.order_by.map((o) =>
      `${o.direction === "desc" ? "-" : ""}${o.field}`
    ).join(", "),
    take: String(query.take),
    audience: query.route?.audience ?? "",
    roles: query.route?.roles ?? [],
  };
}

async function backendData(
  c: Context<AppEnv>,
  extra: Partial<BackendData> = {},
): Promise<BackendData> {
  const { ctx, shell } = await openAdminPage(c, [
    { label: "Settings", href: "/admin/settings" },
    { label: "Backend access" },
  ]);
  requireModelApply(ctx);
  const backend = backendContext(ctx);
  const { db } = ctx.services;
  const stored = await listModels(backend);
  const access = new Map(
    (await accessOfModels(backend, stored)).map((a) => [
      a.model_id,
      a.operations,
    ]),
  );
  const models: ModelView[] = stored.map((m) => ({
    id: m.id,
    name: m.name,
    slug: m.slug,
    columns: columnViews(m.fields),
    access: access.get(m.id)!,
  }));
  const roles = await db.selectFrom("roles").select(["id", "name"])
    .where("site_id", "=", ctx.site.id).orderBy("created_at").orderBy("name")
    .execute();
  const queries = await listSavedQueries(backend);
  const done = c.req.query("done");
  const named = (id: string | undefined) =>
    queries.find((q) => q.id === id)?.name ?? "";
  const notice = done === "access"
    ? `Access rules of ${
      models.find((m) => m.id === c.req.query("model"))?.name ?? "the model"
    } saved.`
    : done === "created"
    ? `Saved query “${named(c.req.query("id"))}” created.`
    : done === "updated"
    ? `Saved query “${named(c.req.query("id"))}” saved.`
    : done === "deleted"
    ? "Saved query deleted."
    : undefined;
  return {
    title: "Backend access",
    shell,
    csrfToken: c.var.csrfToken,
    models,
    roles,
    queries,
    form: { ...EMPTY_FORM, modelId: models[0]?.id ?? "" },
    notice,
    ...extra,
  };
}

/** `select.1` or ["select", 1] -> "Columns #2". */
function partName(path: readonly PropertyKey[] | string): string {
  const parts = typeof path === "string" ? path.split(".") : [...path];
  if (parts.length === 0) return "Query";
  const [head, ...rest] = parts.map(String);
  const label = PART_LABELS[head] ?? head;
  const tail = rest.map((p) => /^\d+$/.test(p) ? `#${Number(p) + 1}` : p);
  return [label, ...tail].join(" ");
}

function issueLines(issues: InputIssue[]): string[] {
  return issues.map((i) => `${partName(i.path)}: ${i.message}`);
}

/** A saved-query refusal in plain words, with the status it answers. */
function queryRefusal(refusal: SavedQueryRefusal): {
  status: 404 | 409 | 422;
  alert: Alert;
} {
  const href = "#query-form";
  switch (refusal.code) {
    case "not_found":
      return {
        status: 404,
        alert: { message: "That saved query no longer exists.", items: [] },
      };
    case "invalid_request":
      return {
        status: 422,
        alert: {
          message: "Some values need attention:",
          items: issueLines(refusal.issues),
          href,
        },
      };
    case "saved_query_invalid":
      return {
        status: 422,
        alert: {
          message: "This query does not fit its model:",
          items: issueLines(refusal.issues),
          href,
        },
      };
    case "private_field_on_public_route":
      return {
        status: 422,
        alert: {
          message: `A public route cannot serve private fields: ${
            refusal.fields.join(", ")
          }. Choose a signed-in or service audience, or leave those columns out.`,
          items: [],
          href,
        },
      };
    case "saved_query_slug_taken":
      return {
        status: 409,
        alert: {
          message:
            `Another saved query already uses the slug “${refusal.slug}”. Choose another slug.`,
          items: [],
          href,
        },
      };
    case "saved_query_limit":
      return {
        status: 422,
        alert: {
          message:
            `A site can have at most ${refusal.limit} saved queries. Delete one before adding another.`,
          items: [],
          href,
        },
      };
  }
}

/** The posted saved-query form, as text. */
function postedForm(form: Record<string, unknown>): QueryForm {
  const audience = one(form.audience);
  return {
    id: one(form.id) || undefined,
    modelId: one(form.model),
    name: one(form.name),
    slug: one(form.slug).trim(),
    columns: one(form.columns),
    filters: one(form.filters),
    order: one(form.order),
    take: one(form.take).trim(),
    audience: (AUDIENCES as readonly string[]).includes(audience)
      ? audience as Audience
      : "",
    roles: formList(form.route_roles),
  };
}

/** A filter value typed as text, as the column's field type wants it (left as text otherwise). */
function filterValue(
  text: string,
  type: string | undefined,
): string | number | boolean {
  if (type === "number" && text !== "" && Number.isFinite(Number(text))) {
    return Number(text);
  }
  if (type === "boolean" && (text === "true" || text === "false")) {
    return text === "true";
  }
  return text;
}

/**
 * The form's text as a saved query body: columns and order comma-separated (a leading - sorts
 * descending), one `column=value` filter per line. Lines that are not `column=value` are problems.
 */
function queryBody(
  form: QueryForm,
  columns: ColumnView[],
): { body: Record<string, unknown>; problems: string[] } {
  const types = new Map(columns.map((c) => [c.key, c.type]));
  const list = (text: string) =>
    text.split(",").map((s) => s.trim()).filter(Boolean);
  const problems: string[] = [];
  const filter: Record<string, string | number | boolean> = {};
  form.filters.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === "") return;
    const eq = line.indexOf("=");
    if (eq <= 0) {
      problems.push(
        `Filters line ${i + 1}: write column=value, such as featured=true`,
      );
      return;
    }
    const key = line.slice(0, eq).trim();
    filter[key] = filterValue(line.slice(eq + 1).trim(), types.get(key));
  });
  const order_by = list(form.order).map((part) =>
    part.startsWith("-")
      ? { field: part.slice(1).trim(), direction: "desc" as const }
      : { field: part, direction: "asc" as const }
  );
  const route = form.audience === ""
    ? null
    : form.audience === "session" && form.roles.length > 0
    ? { audience: form.audience, roles: form.roles }
    : { audience: form.audience };
  const body: Record<string, unknown> = {
    name: form.name,
    slug: form.slug,
    select: list(form.columns),
    filter,
    order_by,
    route,
  };
  if (form.take !== "") body.take = Number(form.take);
  return { body, problems };
}

async function saveQuery(c: Context<AppEnv>, ctx: AdminContext, raw: unknown) {
  const form = postedForm(raw as Record<string, unknown>);
  const backend = backendContext(ctx);
  const current = form.id ? await getSavedQuery(backend, form.id) : null;
  if (form.id && !current) {
    const { status, alert } = queryRefusal({ ok: false, code: "not_found" });
    return page(await backendData(c, { alert }), { status });
  }
  if (current) form.modelId = current.model_id;
  const models = await listModels(backend);
  const model = models.find((m) => m.id === form.modelId.toLowerCase());
  const columns = model ? columnViews(model.fields) : [];
  const { body, problems } = queryBody(form, columns);
  const refusedWith = async (alert: Alert, status: number) =>
    page(await backendData(c, { alert, form }), { status });
  if (problems.length > 0) {
    return refusedWith({
      message: "Some values need attention:",
      items: problems,
      href: "#query-form",
    }, 422);
  }
  const parsed = current
    ? updateSavedQueryInput.safeParse(body)
    : createSavedQueryInput.safeParse({ ...body, model_id: form.modelId });
  if (!parsed.success) {
    return refusedWith({
      message: "Some values need attention:",
      items: parsed.error.issues.map((i) =>
        `${partName(i.path)}: ${i.message}`
      ),
      href: "#query-form",
    }, 422);
  }
  const saved = current
    ? await updateSavedQuery(backend, current.id, parsed.data, {
      actor: ctx.actor,
    })
    : await createSavedQuery(
      backend,
      parsed.data as Parameters<typeof createSavedQuery>[1],
      { actor: ctx.actor },
    );
  if (!saved.ok) {
    const { status, alert } = queryRefusal(saved);
    return refusedWith(alert, status);
  }
  return c.redirect(
    `${PATH}?done=${current ? "updated" : "created"}&id=${saved.query.id}`,
    303,
  );
}

async function saveAccess(
  c: Context<AppEnv>,
  ctx: AdminContext,
  form: Record<string, unknown>,
) {
  const modelId = one(form.model);
  const typed = Object.fromEntries(BACKEND_OPERATIONS.map((op) => {
    const audience = one(form[`audience.${op}`]) as Audience;
    return [op, { audience, roles: formList(form[`roles.${op}`]) }];
  })) as Record<BackendOperation, RuleShown>;
  // Service is the default: leaving it out stores no rule. Roles only go with a session rule.
  const operations = Object.fromEntries(
    BACKEND_OPERATIONS.flatMap((op) => {
      const { audience, roles } = typed[op];
      if (audience === "service") return [];
      return [[
        op,
        audience === "session" && roles.length > 0
          ? { audience, roles }
          : { audience },
      ]];
    }),
  );
  const refusedWith = async (alert: Alert, status: number) =>
    page(
      await backendData(c, { alert, typedAccess: { modelId, rules: typed } }),
      { status },
    );
  const parsed = modelAccessInput.safeParse({ operations });
  if (!parsed.success) {
    return refusedWith({
      message: "Some access rules need attention:",
      items: parsed.error.issues.map((i) =>
        `${i.path.slice(1).map(String).join(" ")}: ${i.message}`
      ),
      href: `#access-${modelId}`,
    }, 422);
  }
  const saved = await putModelAccess(
    backendContext(ctx),
    modelId,
    parsed.data,
    ctx.actor,
  );
  if (!saved.ok) {
    if (saved.code === "not_found") {
      return refusedWith({
        message: "That model no longer exists.",
        items: [],
      }, 404);
    }
    return refusedWith({
      message: "Some access rules need attention:",
      items: saved.issues.map((i) =>
        `${i.path.replace(/^operations\./, "")}: ${i.message}`
      ),
      href: `#access-${modelId}`,
    }, 422);
  }
  return c.redirect(
    `${PATH}?done=access&model=${saved.access.model_id}`,
    303,
  );
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    const editId = c.req.query("edit");
    if (!editId) return page(await backendData(c));
    const data = await backendData(c);
    const query = data.queries.find((q) => q.id === editId.toLowerCase());
    if (!query) {
      return page({
        ...data,
        alert: queryRefusal({ ok: false, code: "not_found" }).alert,
      }, { status: 404 });
    }
    return page({ ...data, form: formOf(query) });
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody({ all: true });
    const ctx = await adminContext(c);
    requireModelApply(ctx);
    const action = one(form.action);
    if (action === "access") return saveAccess(c, ctx, form);
    if (action === "delete") {
      const deleted = await deleteSavedQuery(
        backendContext(ctx),
        one(form.id),
        { actor: ctx.actor },
      );
      if (!deleted.ok) {
        const { status, alert } = queryRefusal(deleted);
        return page(await backendData(c, { alert }), { status });
      }
      return c.redirect(`${PATH}?done=deleted`, 303);
    }
    return saveQuery(c, ctx, form);
  },
};

function RoleChecks(props: {
  roles: BackendData["roles"];
  name: string;
  checked: string[];
  legend: string;
  /** Side by side rather than one per line. */
  inline?: boolean;
}) {
  if (props.roles.length === 0) return null;
  return (
    <fieldset class={props.inline ? "checks role-checks" : "role-checks"}>
      <legend>{props.legend}</legend>
      {props.roles.map((role) => (
        <label key={role.id} class="check">
          <input
            type="checkbox"
            name={props.name}
            value={role.id}
            checked={props.checked.includes(role.id)}
          />{" "}
          {role.name}
        </label>
      ))}
    </fieldset>
  );
}

function AccessForm(
  props: { model: ModelView; data: BackendData },
) {
  const { model, data } = props;
  const typed = data.typedAccess?.modelId === model.id
    ? data.typedAccess.rules
    : null;
  const headingId = `access-${model.id}-heading`;
  const stored = BACKEND_OPERATIONS.filter((op) => model.access[op].stored);
  // Closed unless a rule is stored or this model's form came back refused, so a site with many
  // models still shows each one's state on one screen.
  return (
    <details
      class="access-model"
      open={typed !== null || stored.length > 0}
    >
      <summary>
        <h3 id={headingId}>
          {model.name} <span class="muted">({model.slug})</span>
        </h3>
        <span class="muted">
          {stored.length === 0
            ? "Every operation: service bearer only (default)"
            : stored.map((op) =>
              `${op}: ${AUDIENCE_LABELS[model.access[op].audience]}`
            ).join("; ")}
        </span>
      </summary>
      <form
        method="post"
        action={PATH}
        id={`access-${model.id}`}
        aria-labelledby={headingId}
      >
        <input type="hidden" name="_csrf" value={data.csrfToken} />
        <input type="hidden" name="action" value="access" />
        <input type="hidden" name="model" value={model.id} />
        {BACKEND_OPERATIONS.map((op) => {
          const rule = model.access[op];
          const shown: RuleShown = typed?.[op] ?? rule;
          const id = `audience-${model.slug}-${op}`;
          return (
            <div
              key={op}
              class="rule-row"
              role="group"
              aria-labelledby={`${id}-op`}
            >
              <p class="rule-op" id={`${id}-op`}>
                <code>{op}</code>{" "}
                <span class="muted">{OPERATION_LABELS[op]}</span>
              </p>
              <div class="field">
                <label for={id}>Who may call it</label>
                <select
                  id={id}
                  name={`audience.${op}`}
                  aria-describedby={`${id}-state`}
                >
                  {AUDIENCES.map((audience) => (
                    <option
                      key={audience}
                      value={audience}
                      selected={shown.audience === audience}
                    >
                      {AUDIENCE_LABELS[audience]}
                    </option>
                  ))}
                </select>
                <p class="hint" id={`${id}-state`}>
                  {rule.stored
                    ? "Rule stored for this model."
                    : "Default: no rule stored."}
                </p>
              </div>
              <RoleChecks
                roles={data.roles}
                name={`roles.${op}`}
                checked={shown.roles}
                legend="Roles, for signed-in members"
                inline
              />
            </div>
          );
        })}
        <p class="buttons">
          <button type="submit">Save rules of {model.name}</button>
        </p>
      </form>
    </details>
  );
}

function routeText(query: SavedQuery, roles: BackendData["roles"]) {
  if (!query.route) return <span class="muted">Not served</span>;
  const named = query.route.roles.map((id) =>
    roles.find((r) => r.id === id)?.name ?? id
  );
  return (
    <div>
      <code>{query.route.path}</code>
      <br />
      {AUDIENCE_LABELS[query.route.audience]}
      {named.length > 0 ? ` (${named.join(", ")})` : ""}
    </div>
  );
}

const COLUMN_HEADS = ["Name", "Model", "Route", "Columns", "Actions"];

function QueriesTable({ data }: { data: BackendData }) {
  if (data.queries.length === 0) {
    return <p class="muted">No saved queries yet.</p>;
  }
  return (
    <div class="table-wrap">
      {/* Explicit roles keep the table's meaning when a phone shows each row as a block. */}
      <table class="stacked-table" role="table">
        <thead role="rowgroup">
          <tr role="row">
            {COLUMN_HEADS.map((head) => (
              <th key={head} scope="col" role="columnheader">{head}</th>
            ))}
          </tr>
        </thead>
        <tbody role="rowgroup">
          {data.queries.map((query) => (
            <tr key={query.id} role="row">
              <td role="cell" data-label="Name">{query.name}</td>
              <td role="cell" data-label="Model">
                {data.models.find((m) => m.id === query.model_id)?.name ??
                  query.model_id}
              </td>
              <td role="cell" data-label="Route">
                {routeText(query, data.roles)}
              </td>
              <td role="cell" data-label="Columns">
                <code>{query.select.join(", ")}</code>
              </td>
              <td role="cell" data-label="Actions">
                <div class="buttons">
                  <a href={`${PATH}?edit=${query.id}#query-form`}>
                    Edit<span class="visually-hidden">{` ${query.name}`}</span>
                  </a>
                  <form method="post" action={PATH} class="inline">
                    <input type="hidden" name="_csrf" value={data.csrfToken} />
                    <input type="hidden" name="action" value="delete" />
                    <input type="hidden" name="id" value={query.id} />
                    <button type="submit" class="danger">
                      Delete<span class="visually-hidden">
                        {` ${query.name}`}
                      </span>
                    </button>
                  </form>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Field(props: {
  id: string;
  label: string;
  hint?: string;
  children: (describedBy: string | undefined) => ComponentChildren;
}) {
  const hintId = props.hint ? `${props.id}-hint` : undefined;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children(hintId)}
      {props.hint && <p class="hint" id={hintId}>{props.hint}</p>}
    </div>
  );
}

function QueryFormCard({ data }: { data: BackendData }) {
  const form = data.form;
  const editing = form.id !== undefined;
  const model = data.models.find((m) => m.id === form.modelId);
  const L = SAVED_QUERY_LIMITS;
  return (
    <section class="card" id="query-form" aria-labelledby="query-form-heading">
      <h2 id="query-form-heading">
        {editing ? `Edit “${form.name}”` : "New saved query"}
      </h2>
      {data.models.length === 0
        ? <p class="muted">Make a model first.</p>
        : (
          <form method="post" action={PATH}>
            <input type="hidden" name="_csrf" value={data.csrfToken} />
            <input type="hidden" name="action" value="query" />
            {editing && <input type="hidden" name="id" value={form.id} />}
            <Field id="query-name" label="Name">
              {() => (
                <input
                  id="query-name"
                  name="name"
                  value={form.name}
                  required
                  maxLength={L.name}
                />
              )}
            </Field>
            <Field
              id="query-slug"
              label="Slug"
              hint={`The route is ${SAVED_QUERY_ROUTE_BASE}<slug>: lower-case letters and digits, words joined by single hyphens.`}
            >
              {(describedBy) => (
                <input
                  id="query-slug"
                  name="slug"
                  value={form.slug}
                  required
                  maxLength={L.slug}
                  aria-describedby={describedBy}
                />
              )}
            </Field>
            {editing
              ? (
                <p>
                  <strong>Model:</strong> {model?.name ?? form.modelId}{" "}
                  <span class="muted">(fixed once saved)</span>
                </p>
              )
              : (
                <Field id="query-model" label="Model">
                  {() => (
                    <select id="query-model" name="model">
                      {data.models.map((m) => (
                        <option
                          key={m.id}
                          value={m.id}
                          selected={m.id === form.modelId}
                        >
                          {m.name}
                        </option>
                      ))}
                    </select>
                  )}
                </Field>
              )}
            <Field
              id="query-columns"
              label="Columns"
              hint={`Comma-separated: id or field keys, such as “id, title”; at most ${L.select}.`}
            >
              {(describedBy) => (
                <input
                  id="query-columns"
                  name="columns"
                  value={form.columns}
                  required
                  aria-describedby={describedBy}
                />
              )}
            </Field>
            <Field
              id="query-filters"
              label="Filters"
              hint={`One column=value per line, such as “featured=true”; rows must match all of them (at most ${L.filter}).`}
            >
              {(describedBy) => (
                <textarea
                  id="query-filters"
                  name="filters"
                  rows={3}
                  aria-describedby={describedBy}
                >
                  {form.filters}
                </textarea>
              )}
            </Field>
            <Field
              id="query-order"
              label="Order"
              hint={`Comma-separated columns, such as “-published_on, title”; a leading - sorts newest or largest first (at most ${L.orderBy}).`}
            >
              {(describedBy) => (
                <input
                  id="query-order"
                  name="order"
                  value={form.order}
                  aria-describedby={describedBy}
                />
              )}
            </Field>
            <Field
              id="query-take"
              label="Rows per page"
              hint={`1 to ${L.take}.`}
            >
              {(describedBy) => (
                <input
                  id="query-take"
                  name="take"
                  type="number"
                  min={1}
                  max={L.take}
                  value={form.take}
                  aria-describedby={describedBy}
                />
              )}
            </Field>
            <Field
              id="query-audience"
              label="Route"
              hint="Who may call the query's route. Anyone (public) cannot be given private columns."
            >
              {(describedBy) => (
                <select
                  id="query-audience"
                  name="audience"
                  aria-describedby={describedBy}
                >
                  <option value="" selected={form.audience === ""}>
                    Not served
                  </option>
                  {AUDIENCES.map((audience) => (
                    <option
                      key={audience}
                      value={audience}
                      selected={form.audience === audience}
                    >
                      {AUDIENCE_LABELS[audience]}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <RoleChecks
              roles={data.roles}
              name="route_roles"
              checked={form.roles}
              legend="Route roles, for signed-in members (none ticked: any member)"
            />
            <details class="columns-help">
              <summary>Columns of each model</summary>
              <dl>
                {data.models.map((m) => (
                  <Fragment key={m.id}>
                    <dt>{m.name}</dt>
                    <dd>
                      {m.columns.map((col, i) => (
                        <Fragment key={col.key}>
                          {i > 0 && ", "}
                          <code>{col.key}</code>
                          {col.private && " (private)"}
                        </Fragment>
                      ))}
                    </dd>
                  </Fragment>
                ))}
              </dl>
            </details>
            <p class="buttons">
              <button type="submit">
                {editing ? "Save query" : "Create query"}
              </button>
              {editing && <a href={PATH}>Cancel</a>}
            </p>
          </form>
        )}
    </section>
  );
}

export default function BackendAccess({ data }: PageProps<BackendData>) {
  return (
    <AdminShell shell={data.shell} title="Backend access">
      {data.notice && !data.alert && (
        <p class="notice" role="status">{data.notice}</p>
      )}
      {data.alert && (
        <div class="alert" role="alert">
          <p>{data.alert.message}</p>
          {data.alert.items.length > 0 && (
            <ul>
              {data.alert.items.map((item, i) => <li key={i}>{item}</li>)}
            </ul>
          )}
          {data.alert.href && (
            <p>
              <a href={data.alert.href}>Go to the form</a>
            </p>
          )}
        </div>
      )}
      <p>
        On this page: <a href="#access-heading">Access rules</a>,{" "}
        <a href="#queries-heading">Saved queries</a>,{" "}
        <a href="#query-form">{data.form.id ? "Edit" : "New"} saved query</a>
      </p>
      <section class="card" aria-labelledby="access-heading">
        <h2 id="access-heading">Access rules</h2>
        <p class="muted">
          Who may call each generated operation of a model. Without a stored
          rule an operation admits service bearers only. Roles narrow a
          signed-in rule to members holding one of them; none ticked admits any
          signed-in member, and other audiences ignore them.
        </p>
        {data.models.length === 0
          ? <p class="muted">No models yet.</p>
          : data.models.map((model) => (
            <AccessForm key={model.id} model={model} data={data} />
          ))}
      </section>
      <section class="card" aria-labelledby="queries-heading">
        <h2 id="queries-heading">Saved queries</h2>
        <p class="muted">
          A named selection of one model's rows. Served on a route, it answers
          at <code>{`${SAVED_QUERY_ROUTE_BASE}<slug>`}</code>{" "}
          to the audience chosen.
        </p>
        <QueriesTable data={data} />
      </section>
      <QueryFormCard data={data} />
    </AdminShell>
  );
}
