// GET/POST /admin/plugins/operations[?instance=<entry language id>]: the operation runner. Lists
// the interactive operations the person may run now (site operations, or those of one entry),
// each as a form made from the operation's declared input; a run goes through the invocation
// service as the person and its result blocks are shown on the answer (spec 1 part 2.5).
import type { Context } from "hono";
import { readReach } from "../../../core/access/decide.ts";
import type { AdminContext } from "../../../core/admin/context.ts";
import { one } from "../../../core/admin/form_values.ts";
import {
  operationInput,
  runFromAdmin,
  type RunnableOperation,
  runnableOperations,
} from "../../../core/admin/plugin_operations.ts";
import type { ShellData } from "../../../core/admin/shell.ts";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import type { ResultBlock } from "../../../core/plugins/answers.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";
import { page, type PageProps } from "../../../core/web/manifest.ts";
import { AdminShell, openAdminPage } from "../_shell.tsx";
import { scrollRegion } from "../_table.tsx";

export const middleware = requireSignedIn;

/** The entry language the operations run on, when the page is for one. */
interface Target {
  instanceId: string;
  modelId: string;
  modelSlug: string;
  groupId: string;
  locale: string;
  title: string;
}

interface OperationsData {
  shell: ShellData;
  target: Target | null;
  operations: RunnableOperation[];
  languages: string[];
  /** The run just made: which operation, and its blocks or refusal. */
  ran?: {
    key: string;
    label: string;
    blocks?: ResultBlock[];
    refusal?: { code: string; message: string };
    /** Refused input, by field name. */
    fieldErrors: Record<string, string>;
    /** What the person posted, to show again after a refusal. */
    values: Record<string, string>;
  };
}

async function targetOf(
  ctx: AdminContext,
  instanceId: string,
): Promise<Target> {
  const missing = () =>
    refuse(404, "not_found", "No such entry you can run operations on");
  if (!/^[0-9a-f-]{36}$/i.test(instanceId)) return missing();
  const row = await ctx.services.db.selectFrom("entries as e")
    .innerJoin(
      "entry_groups as g",
      (j) =>
        j.onRef("g.site_id", "=", "e.site_id").onRef("g.id", "=", "e.group_id"),
    )
    .select([
      "e.id",
      "e.locale",
      "e.slug",
      "e.list_title",
      "g.id as group_id",
      "g.created_by",
      "g.model_id",
    ])
    .where("e.site_id", "=", ctx.site.id).where("e.id", "=", instanceId)
    .executeTakeFirst();
  if (!row) return missing();
  const model = await ctx.services.db.selectFrom("models").select("slug")
    .where("site_id", "=", ctx.site.id).where("id", "=", row.model_id)
    .executeTakeFirst();
  if (!model) return missing();
  const reach = readReach(ctx.authority, row.model_id);
  if (reach === "none" || (reach === "own" && row.created_by !== ctx.user.id)) {
    return missing();
  }
  return {
    instanceId: row.id,
    modelId: row.model_id,
    modelSlug: model.slug,
    groupId: row.group_id,
    locale: row.locale,
    title: row.list_title ?? row.slug,
  };
}

async function operationsData(c: Context<AppEnv>): Promise<
  { ctx: AdminContext; data: OperationsData }
> {
  const { ctx, shell } = await openAdminPage(c, []);
  const instance = c.req.query("instance");
  const target = instance ? await targetOf(ctx, instance) : null;
  shell.crumbs.push(
    target
      ? {
        label: target.title,
        href:
          `/admin/content/${target.modelSlug}/${target.groupId}?lang=${target.locale}`,
      }
      : { label: "Settings", href: "/admin/settings" },
    { label: "Plugin operations" },
  );
  return {
    ctx,
    data: {
      shell,
      target,
      operations: await runnableOperations(ctx, target?.modelId ?? null),
      languages: ctx.site.languages,
    },
  };
}

function keyOf(o: { installationId: string; op: { id: string } }): string {
  return `${o.installationId}:${o.op.id}`;
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return page((await operationsData(c)).data);
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody({ all: true });
    const { ctx, data } = await operationsData(c);
    const chosen = data.operations.find((o) =>
      o.installationId === one(form.installation_id) &&
      o.op.id === one(form.operation)
    );
    if (!chosen) {
      return refuse(
        404,
        "operation_unavailable",
        "No such operation you may run here",
      );
    }
    const values = Object.fromEntries(
      chosen.op.input.map((f) => [f.name, one(form[`in.${f.name}`])]),
    );
    const ran: NonNullable<OperationsData["ran"]> = {
      key: keyOf(chosen),
      label: chosen.op.label,
      fieldErrors: {},
      values,
    };
    data.ran = ran;
    if (chosen.op.destructive && one(form.confirm) === "") {
      ran.refusal = {
        code: "confirmation_required",
        message:
          "This operation changes content: tick the box to confirm, then run it",
      };
      ran.fieldErrors.confirm = "Confirm to run a destructive operation";
      return page(data, { status: 422 });
    }
    const result = await runFromAdmin(ctx, {
      installationId: chosen.installationId,
      operationId: chosen.op.id,
      instanceId: data.target?.instanceId,
      input: operationInput(chosen.op, form),
    });
    if (result.ok) {
      ran.blocks = result.result.blocks;
      return page(data);
    }
    // A plugin's own refusal is shown by its own code.
    const plugin = result.details?.plugin as { code?: string } | undefined;
    ran.refusal = {
      code: plugin?.code ?? result.code,
      message: result.message,
    };
    const issues = (result.details?.issues ?? []) as {
      path: string;
      message: string;
    }[];
    for (const issue of issues) {
      const name = issue.path.replace(/^input\./, "");
      ran.fieldErrors[name] = issue.message;
    }
    return page(data, { status: result.status });
  },
};

function Blocks(props: { blocks: ResultBlock[] }) {
  return (
    <div class="stack result-blocks">
      {props.blocks.map((block, i) => {
        switch (block.type) {
          case "text":
            return (
              <p key={i} class={block.tone ? `tone-${block.tone}` : undefined}>
                {block.text}
              </p>
            );
          case "rows":
            return (
              <div
                key={i}
                class="table-wrap"
                {...scrollRegion(`${block.title ?? "Result"} table`)}
              >
                <table>
                  {block.title && <caption>{block.title}</caption>}
                  <thead>
                    <tr>
                      {block.columns.map((col) => (
                        <th key={col.key} scope="col">{col.label}</th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {block.rows.map((row, r) => (
                      <tr key={r}>
                        {block.columns.map((col) => (
                          <td key={col.key}>{String(row[col.key] ?? "")}</td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
                {block.rows.length === 0 && <p class="muted">No rows.</p>}
              </div>
            );
          case "links":
            return (
              <div key={i}>
                {block.title && <h3>{block.title}</h3>}
                <ul>
                  {block.links.map((l) => (
                    <li key={l.url}>
                      <a href={l.url} rel="noopener noreferrer" target="_blank">
                        {l.label}
                      </a>
                    </li>
                  ))}
                </ul>
              </div>
            );
          case "json":
            return (
              <figure key={i} class="json-block">
                <figcaption>
                  <code>{block.filename}</code>
                </figcaption>
                <pre tabindex={0}>{JSON.stringify(block.data, null, 2)}</pre>
              </figure>
            );
          case "cells":
            return (
              <ul key={i}>
                {block.cells.map((cell) => (
                  <li key={cell.instance_id}>
                    <code>{cell.instance_id}</code>:{" "}
                    <span class="badge">{cell.badge.label}</span>
                  </li>
                ))}
              </ul>
            );
        }
      })}
    </div>
  );
}

function InputControl(
  props: {
    field: RunnableOperation["op"]["input"][number];
    id: string;
    value: string;
    error?: string;
    languages: string[];
  },
) {
  const { field, id, value } = props;
  const name = `in.${field.name}`;
  const described = [
    field.help ? `${id}-help` : "",
    props.error ? `${id}-error` : "",
  ].filter((x) => x !== "").join(" ") || undefined;
  const common = {
    id,
    name,
    "aria-describedby": described,
    "aria-invalid": props.error ? "true" as const : undefined,
    "aria-required": field.required ? "true" as const : undefined,
  };
  switch (field.type) {
    case "textarea":
      return (
        <textarea {...common} rows={3} maxLength={field.max_length}>
          {value}
        </textarea>
      );
    case "number":
      return (
        <input
          {...common}
          type="number"
          step="any"
          min={field.min}
          max={field.max}
          value={value}
        />
      );
    case "boolean":
      return (
        <input
          {...common}
          type="checkbox"
          value="true"
          checked={value !== ""}
        />
      );
    case "select":
    case "locale": {
      const options = field.type === "select"
        ? field.options!
        : props.languages.map((l) => ({ value: l, label: l }));
      return (
        <select {...common}>
          {!field.required && <option value="">—</option>}
          {options.map((o) => (
            <option key={o.value} value={o.value} selected={o.value === value}>
              {o.label}
            </option>
          ))}
        </select>
      );
    }
    case "datetime":
      return (
        <input {...common} type="datetime-local" value={value.slice(0, 16)} />
      );
    default:
      return (
        <input
          {...common}
          type="text"
          maxLength={field.max_length}
          value={value}
          placeholder={field.type === "timezone" ? "Europe/Berlin" : undefined}
        />
      );
  }
}

function OperationForm(
  props: { data: OperationsData; item: RunnableOperation },
) {
  const { data, item } = props;
  const key = keyOf(item);
  const ran = data.ran?.key === key ? data.ran : undefined;
  const base = `op-${item.installationId.slice(0, 8)}-${item.op.id}`;
  return (
    <article class="card operation" aria-labelledby={`${base}-title`} id={base}>
      <h2 id={`${base}-title`}>
        {item.op.label}{" "}
        {item.op.destructive && (
          <span class="badge trashed">changes content</span>
        )}
      </h2>
      <p class="muted">From {item.pluginName}</p>
      {item.op.description && <p>{item.op.description}</p>}
      {ran?.refusal && (
        <p class="alert" role="alert">
          {ran.refusal.message} <code>{ran.refusal.code}</code>
        </p>
      )}
      {ran?.blocks && (
        <section aria-labelledby={`${base}-result`} class="operation-result">
          <h3 id={`${base}-result`}>Result</h3>
          <p class="notice" role="status">{item.op.label} ran.</p>
          <Blocks blocks={ran.blocks} />
        </section>
      )}
      <form method="post" action={`#${base}`}>
        <input type="hidden" name="_csrf" value={data.shell.csrfToken} />
        <input
          type="hidden"
          name="installation_id"
          value={item.installationId}
        />
        <input type="hidden" name="operation" value={item.op.id} />
        {item.op.input.map((field) => {
          const id = `${base}-${field.name}`;
          const error = ran?.fieldErrors[field.name];
          const value = ran?.values[field.name] ?? "";
          if (field.type === "boolean") {
            return (
              <div class="field" key={field.name}>
                <label class="check" for={id}>
                  <InputControl
                    field={field}
                    id={id}
                    value={value}
                    error={error}
                    languages={data.languages}
                  />{" "}
                  {field.label}
                </label>
                {field.help && (
                  <p class="hint" id={`${id}-help`}>{field.help}</p>
                )}
                {error && <p class="field-error" id={`${id}-error`}>{error}</p>}
              </div>
            );
          }
          return (
            <div class="field" key={field.name}>
              <label for={id}>
                {field.label}
                {field.required && (
                  <span class="required-mark" aria-hidden="true">*</span>
                )}
              </label>
              <InputControl
                field={field}
                id={id}
                value={value}
                error={error}
                languages={data.languages}
              />
              {(field.help || field.type === "datetime") && (
                <p class="hint" id={`${id}-help`}>
                  {field.help}
                  {field.type === "datetime" ? " (UTC)" : ""}
                </p>
              )}
              {error && <p class="field-error" id={`${id}-error`}>{error}</p>}
            </div>
          );
        })}
        {item.op.destructive && (
          <div class="field">
            <label class="check" for={`${base}-confirm`}>
              <input
                type="checkbox"
                id={`${base}-confirm`}
                name="confirm"
                value="1"
                aria-describedby={ran?.fieldErrors.confirm
                  ? `${base}-confirm-error`
                  : undefined}
              />{" "}
              I understand this operation changes content
            </label>
            {ran?.fieldErrors.confirm && (
              <p class="field-error" id={`${base}-confirm-error`}>
                {ran.fieldErrors.confirm}
              </p>
            )}
          </div>
        )}
        <button
          type="submit"
          class={item.op.destructive ? "danger" : undefined}
        >
          Run {item.op.label.toLowerCase()}
        </button>
      </form>
    </article>
  );
}

export default function PluginOperations({ data }: PageProps<OperationsData>) {
  const title = data.target
    ? `Operations on “${data.target.title}” (${data.target.locale})`
    : "Site operations";
  return (
    <AdminShell shell={data.shell} title={title}>
      <p class="muted">
        {data.target
          ? "Operations of installed plugins that you may run on this entry."
          : "Operations of installed plugins that run on the whole site."}{" "}
        Each run goes to the plugin as you and is recorded in the audit trail.
      </p>
      {data.operations.length === 0 && (
        <p class="card">
          No plugin offers an operation you may run here. Administrators install
          plugins and grant them under Settings → Plugins.
        </p>
      )}
      {data.operations.map((item) => (
        <OperationForm key={keyOf(item)} data={data} item={item} />
      ))}
    </AdminShell>
  );
}
