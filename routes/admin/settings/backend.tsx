// GET/POST /admin/settings/backend: who may call each generated-backend operation of each model
// (access rules), the saved queries the backend serves on routes (MOD-031), and the generated
// backend's download (site:infra). Access rules and queries are model configuration, so the
// page needs model:apply. The forms' data live in core/backend/admin_forms.ts, the markup in
// _backend_views.tsx. See docs/backend-access.md and docs/generated-backend.md.
import type { Context } from "hono";
import { adminContext } from "../../../core/admin/context.ts";
import { formList, one } from "../../../core/admin/form_values.ts";
import { mayApplyModels } from "../../../core/admin/model_editor.ts";
import type { AdminContext } from "../../../core/admin/context.ts";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import {
  accessOfModels,
  type Audience,
  BACKEND_OPERATIONS,
  type BackendContext,
  type BackendOperation,
  modelAccessInput,
  putModelAccess,
} from "../../../core/backend/access.ts";
import {
  type Alert,
  type BackendData,
  columnViews,
  EMPTY_FORM,
  formOf,
  generationAlert,
  type ModelView,
  partName,
  PATH,
  postedForm,
  postedGenerate,
  queryBody,
  queryRefusal,
  type RuleShown,
} from "../../../core/backend/admin_forms.ts";
import {
  backendArchive,
  type DownloadContext,
  mayDownloadBackend,
} from "../../../core/backend/download.ts";
import { parseDisabled } from "../../../core/backend/generate/mod.ts";
import {
  createSavedQuery,
  createSavedQueryInput,
  deleteSavedQuery,
  getSavedQuery,
  listSavedQueries,
  updateSavedQuery,
  updateSavedQueryInput,
} from "../../../core/backend/saved_queries.ts";
import { listModels } from "../../../core/models/model_reads.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";
import { page, type PageProps } from "../../../core/web/manifest.ts";
import { openAdminPage } from "../_shell.tsx";
import { BackendAccessView } from "./_backend_views.tsx";

export const middleware = requireSignedIn;

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

function downloadContext(
  c: Context<AppEnv>,
  ctx: AdminContext,
): DownloadContext {
  return {
    db: ctx.services.db,
    clock: ctx.services.clock,
    siteId: ctx.site.id,
    personId: c.var.user!.id,
    publicUrl: ctx.services.config.publicUrl,
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
    mayGenerate: await mayDownloadBackend(downloadContext(c, ctx)),
    generate: { models: [], disabled: "" },
    notice,
    ...extra,
  };
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

/** Generates the backend and answers it as a zip download, or the page with the problems. */
async function download(
  c: Context<AppEnv>,
  ctx: AdminContext,
  form: Record<string, unknown>,
) {
  const generate = postedGenerate(form);
  const refusedWith = async (alert: Alert, status: number) =>
    page(await backendData(c, { alert, generate }), { status });
  if (generate.models.length === 0) {
    return refusedWith({
      message: "Tick at least one model to include.",
      items: [],
      href: "#generate-heading",
    }, 422);
  }
  const pairs = generate.disabled.split(",").map((s) => s.trim())
    .filter(Boolean);
  const disabled = parseDisabled(pairs);
  if (typeof disabled === "string") {
    return refusedWith({
      message: "Operations to leave out need attention:",
      items: [disabled],
      href: "#generate-disabled",
    }, 422);
  }
  const archive = await backendArchive(downloadContext(c, ctx), {
    models: generate.models,
    disabled,
  });
  if (!archive.ok) {
    if (archive.code === "missing_permission") {
      refuse(
        403,
        "missing_permission",
        "Downloading the generated backend needs site:infra",
      );
    }
    return refusedWith(generationAlert(archive.problems), 422);
  }
  return new Response(archive.bytes, {
    headers: {
      "content-type": "application/zip",
      "content-disposition": `attachment; filename="${archive.fileName}"`,
      "cache-control": "no-store",
    },
  });
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
    if (action === "generate") return download(c, ctx, form);
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

export default function BackendAccess({ data }: PageProps<BackendData>) {
  return <BackendAccessView data={data} />;
}
