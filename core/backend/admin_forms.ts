// The Backend access page's forms as data: labels, the saved-query form's text to and from a
// saved query, and refusals in plain words. No markup here: routes/admin/settings/backend.tsx
// loads and acts, routes/admin/settings/_backend_views.tsx draws.
import { formList, one } from "../admin/form_values.ts";
import type { ShellData } from "../admin/shell.ts";
import type { FieldDefinition } from "../models/field_types.ts";
import {
  type AccessRule,
  type Audience,
  AUDIENCES,
  type BackendOperation,
  type InputIssue,
} from "./access.ts";
import { queryColumns } from "./columns.ts";
import type { GenerationProblem } from "./generate/plan.ts";
import {
  SAVED_QUERY_LIMITS,
  type SavedQuery,
  type SavedQueryRefusal,
} from "./saved_queries.ts";

export const PATH = "/admin/settings/backend";

/** How the page names each audience. */
export const AUDIENCE_LABELS: Record<Audience, string> = {
  anonymous: "Anyone (public)",
  session: "Signed-in members",
  service: "Service bearer only",
};

/** What each generated operation does, beside its name. */
export const OPERATION_LABELS: Record<BackendOperation, string> = {
  findMany: "list entries",
  findManyPaginated: "list entries by page",
  findUnique: "read one entry",
  create: "create an entry",
  update: "change an entry",
  delete: "delete an entry",
};

/** The names of a saved query's parts as the form labels them, for problems by path. */
export const PART_LABELS: Record<string, string> = {
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
export interface ColumnView {
  key: string;
  type: string;
  private: boolean;
}

/** A model with its columns and its access rules. */
export interface ModelView {
  id: string;
  name: string;
  slug: string;
  columns: ColumnView[];
  access: Record<BackendOperation, AccessRule>;
}

/** A rule as the form shows it (stored, or as typed before a refusal). */
export interface RuleShown {
  audience: Audience;
  roles: string[];
}

/** The saved-query form's values, as text: the stored query's or what was typed. */
export interface QueryForm {
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
export interface Alert {
  message: string;
  items: string[];
  /** Where the form it concerns is. */
  href?: string;
}

export interface BackendData {
  title: string;
  shell: ShellData;
  csrfToken: string;
  models: ModelView[];
  roles: { id: string; name: string }[];
  queries: SavedQuery[];
  form: QueryForm;
  notice?: string;
  alert?: Alert;
  /** The person may download the generated backend (site:infra). */
  mayGenerate: boolean;
  /** The generate form as typed, kept when generation was refused. */
  generate: GenerateForm;
  /** The access rules a refused save posted, kept for its model's form. */
  typedAccess?: { modelId: string; rules: Record<BackendOperation, RuleShown> };
}

/** A model's columns as the form lists them. */
export function columnViews(fields: readonly FieldDefinition[]): ColumnView[] {
  return [...queryColumns(fields).values()].map((col) => ({
    key: col.key,
    type: col.type,
    private: col.private,
  }));
}

export const EMPTY_FORM: QueryForm = {
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
export function formOf(query: SavedQuery): QueryForm {
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

/** `select.1` or ["select", 1] -> "Columns #2". */
export function partName(path: readonly PropertyKey[] | string): string {
  const parts = typeof path === "string" ? path.split(".") : [...path];
  if (parts.length === 0) return "Query";
  const [head, ...rest] = parts.map(String);
  const label = PART_LABELS[head] ?? head;
  const tail = rest.map((p) => /^\d+$/.test(p) ? `#${Number(p) + 1}` : p);
  return [label, ...tail].join(" ");
}

export function issueLines(issues: InputIssue[]): string[] {
  return issues.map((i) => `${partName(i.path)}: ${i.message}`);
}

/** A saved-query refusal in plain words, with the status it answers. */
export function queryRefusal(refusal: SavedQueryRefusal): {
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
export function postedForm(form: Record<string, unknown>): QueryForm {
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
export function filterValue(
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
export function queryBody(
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

/** The generate form's values: model slugs ticked, operations to leave out as typed. */
export interface GenerateForm {
  /** Empty on first show: every model is ticked. */
  models: string[];
  disabled: string;
}

/** The posted generate form. */
export function postedGenerate(form: Record<string, unknown>): GenerateForm {
  return { models: formList(form.models), disabled: one(form.disabled) };
}

/** Why generation was refused, one line per problem, naming model and field. */
export function generationAlert(problems: readonly GenerationProblem[]): Alert {
  return {
    message:
      "The backend cannot be generated; nothing was downloaded. Each problem names its model and field:",
    items: problems.map((p) =>
      `${p.model}${p.field ? `.${p.field}` : ""}: ${p.message} (${p.code})`
    ),
    href: "#generate-heading",
  };
}
