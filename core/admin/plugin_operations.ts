// The admin's operation runner: the interactive operations a person may run now (on the site, or
// on one entry), their input read from a form, and a run through the same invocation service
// the Management API and MCP use (spec 1 part 2.5; spec 2 part 2.5), as the signed-in person.
import { one } from "./form_values.ts";
import { availablePlugins } from "../plugins/available.ts";
import {
  invokeColumn,
  invokeOperation,
  type InvokeRefusal,
  type InvokeSuccess,
} from "../plugins/invocations.ts";
import type { ManifestOperation } from "../plugins/manifest.ts";
import type { AdminContext } from "./context.ts";
import { personInvokeContext } from "./policy_checks.ts";
import type { PostedForm } from "./page_sections.ts";

/** An operation the person may run on the target shown. */
export interface RunnableOperation {
  installationId: string;
  pluginName: string;
  op: ManifestOperation;
}

/**
 * Interactive operations the person may run now: site operations when `modelId` is null, else
 * the entry and page operations granted on that model. Automation-only and column operations
 * are never offered here (the spec keeps them for scripts and lists).
 */
export async function runnableOperations(
  ctx: AdminContext,
  modelId: string | null,
): Promise<RunnableOperation[]> {
  const plugins = await availablePlugins(
    ctx.services.db,
    ctx.site.id,
    ctx.authority,
  );
  return plugins.flatMap((p) =>
    p.operations.filter(({ op, model_ids }) =>
      op.audience === "interactive" &&
      (modelId === null
        ? op.scope === "site"
        : op.scope !== "site" && model_ids.includes(modelId))
    ).map(({ op }) => ({
      installationId: p.installation.id,
      pluginName: p.installation.name,
      op,
    }))
  );
}

/**
 * The input a posted form holds, typed as the operation declares it: a number field as a number
 * (text that is not one is passed on for the service's check to refuse by name), a yes/no box
 * as true or false, empty fields left out.
 */
export function operationInput(
  op: ManifestOperation,
  form: PostedForm,
): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const field of op.input) {
    const name = `in.${field.name}`;
    if (field.type === "boolean") {
      input[field.name] = one(form[name]) !== "";
      continue;
    }
    const text = one(form[name]);
    if (text.trim() === "") continue;
    if (field.type === "number") {
      const n = Number(text.trim());
      input[field.name] = Number.isFinite(n) ? n : text;
      continue;
    }
    // A datetime-local control posts minutes without a zone: the form says it is UTC.
    input[field.name] = field.type === "datetime" &&
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(text)
      ? `${text}:00Z`
      : text;
  }
  return input;
}

/** Runs the operation as the signed-in person (`via: session`); audited as every run is. */
export async function runFromAdmin(
  ctx: AdminContext,
  run: {
    installationId: string;
    operationId: string;
    instanceId?: string;
    input: Record<string, unknown>;
  },
): Promise<InvokeSuccess | InvokeRefusal> {
  return await invokeOperation(
    personInvokeContext(ctx),
    run.installationId,
    run.operationId,
    {
      ...(run.instanceId ? { instance_id: run.instanceId } : {}),
      input: run.input,
    },
  );
}

/** A plugin column of an entry list: its header, and a badge per listed entry that has one. */
export interface PluginColumn {
  key: string;
  label: string;
  pluginName: string;
  /** Badges by entry language id. */
  cells: Record<string, { label: string; tone: string }>;
  /** Why the column is empty, when its plugin could not answer. */
  error: string | null;
}

/**
 * The plugin columns of a list of `modelId`: each column operation granted on the model that
 * the person may run, run once for the listed entry languages. A plugin that cannot answer
 * leaves its column empty with the reason, and never stops the list.
 */
export async function listColumns(
  ctx: AdminContext,
  modelId: string,
  instanceIds: readonly string[],
): Promise<PluginColumn[]> {
  const plugins = await availablePlugins(
    ctx.services.db,
    ctx.site.id,
    ctx.authority,
  );
  const columns = plugins.flatMap((p) =>
    p.operations.filter(({ op, model_ids }) =>
      op.audience === "column" && model_ids.includes(modelId)
    ).map(({ op }) => ({ installation: p.installation, op }))
  );
  const invoke = personInvokeContext(ctx);
  return await Promise.all(columns.map(async ({ installation, op }) => {
    const column: PluginColumn = {
      key: `${installation.id}:${op.id}`,
      label: op.label,
      pluginName: installation.name,
      cells: {},
      error: null,
    };
    if (instanceIds.length === 0) return column;
    const ran = await invokeColumn(invoke, installation.id, op.id, {
      model_id: modelId,
      instance_ids: instanceIds,
    });
    if (ran.ok) column.cells = Object.fromEntries(ran.cells);
    else column.error = ran.message;
    return column;
  }));
}
