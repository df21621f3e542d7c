// The Backend access page's markup: access rules per model, saved queries and their form, and
// the generated backend's download. The route (backend.tsx) loads and acts; this draws.
import { type ComponentChildren, Fragment } from "preact";
import {
  AUDIENCE_LABELS,
  type BackendData,
  type ModelView,
  OPERATION_LABELS,
  PATH,
  type RuleShown,
} from "../../../core/backend/admin_forms.ts";
import { AUDIENCES, BACKEND_OPERATIONS } from "../../../core/backend/access.ts";
import {
  SAVED_QUERY_LIMITS,
  SAVED_QUERY_ROUTE_BASE,
  type SavedQuery,
} from "../../../core/backend/saved_queries.ts";
import { AdminShell } from "../_shell.tsx";

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

/** Download of the generated backend: the models to include and operations to leave out. */
function GenerateCard({ data }: { data: BackendData }) {
  const ticked = data.generate.models;
  return (
    <section class="card" aria-labelledby="generate-heading">
      <h2 id="generate-heading">Generated backend</h2>
      <p class="muted">
        A standalone backend of this site: its own Deno project serving each
        model's published entries as a CRUD API on PostgreSQL, with the access
        rules and saved queries above and the read tokens issued under Source &
        delivery. Unzip it and run{" "}
        <code>deno task start</code>; its README says the rest.
      </p>
      {!data.mayGenerate
        ? (
          <p class="muted">
            Downloading it needs the site:infra permission, since it carries the
            published content and the read tokens' digests.
          </p>
        )
        : data.models.length === 0
        ? <p class="muted">Make a model first.</p>
        : (
          <form method="post" action={PATH}>
            <input type="hidden" name="_csrf" value={data.csrfToken} />
            <input type="hidden" name="action" value="generate" />
            <fieldset class="checks">
              <legend>Models to include</legend>
              {data.models.map((m) => (
                <label key={m.id} class="check">
                  <input
                    type="checkbox"
                    name="models"
                    value={m.slug}
                    checked={ticked.length === 0 || ticked.includes(m.slug)}
                  />{" "}
                  {m.name}
                </label>
              ))}
            </fieldset>
            <div class="field">
              <label for="generate-disabled">Operations to leave out</label>
              <input
                id="generate-disabled"
                name="disabled"
                value={data.generate.disabled}
                aria-describedby="generate-disabled-hint"
              />
              <p class="hint" id="generate-disabled-hint">
                Optional, comma-separated model and operation, such as
                “posts.delete, tags.create”. They answer “operation unavailable”
                and are left out of the API description.
              </p>
            </div>
            <p class="buttons">
              <button type="submit">Download backend (.zip)</button>
            </p>
          </form>
        )}
    </section>
  );
}

/** The whole page. */
export function BackendAccessView({ data }: { data: BackendData }) {
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
        <a href="#query-form">{data.form.id ? "Edit" : "New"} saved query</a>,
        {" "}
        <a href="#generate-heading">Generated backend</a>
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
      <GenerateCard data={data} />
    </AdminShell>
  );
}
