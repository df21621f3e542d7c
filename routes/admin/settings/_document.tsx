// What the settings-document pages share: the permission check, a save pinned to the revision the
// page showed, and refusals placed beside the field they name (by the document path).
import type { Context } from "hono";
import { decide } from "../../../core/access/decide.ts";
import {
  type AdminContext,
  adminContext,
} from "../../../core/admin/context.ts";
import type { ShellData } from "../../../core/admin/shell.ts";
import {
  getSettings,
  putSettings,
  type SettingsProblem,
} from "../../../core/sites/settings.ts";
import type {
  SettingsDocument,
  SettingsKey,
} from "../../../core/sites/settings_documents.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";
import { type HandlerResult, page } from "../../../core/web/manifest.ts";
import { openAdminPage } from "../_shell.tsx";

/** What every settings-document page shows. */
export interface DocumentData<K extends SettingsKey> {
  title: string;
  shell: ShellData;
  /** The document shown: the stored one, or what the person typed after a refusal. */
  document: SettingsDocument<K>;
  /** The revision a save is pinned to. */
  revision: number;
  notice?: string;
  alert?: string;
  problems: SettingsProblem[];
}

/** Refuses a person whose role may not change `key` (search needs `site:infra`, the rest `site:settings`). */
export function requireSettingsWrite(
  ctx: AdminContext,
  key: SettingsKey,
): void {
  const decision = decide(ctx.authority, {
    action: key === "search" ? "settings.search" : "settings.write",
  });
  if (!decision.ok) {
    refuse(
      403,
      "missing_permission",
      key === "search"
        ? "Changing site search needs site:infra"
        : "Changing site settings needs site:settings",
    );
  }
}

/** Opens a settings-document page: the shell, the permission check and the stored document. */
export async function openDocumentPage<K extends SettingsKey>(
  c: Context<AppEnv>,
  key: K,
  title: string,
): Promise<{ ctx: AdminContext; data: DocumentData<K> }> {
  const { ctx, shell } = await openAdminPage(c, [
    { label: "Settings", href: "/admin/settings" },
    { label: title },
  ]);
  requireSettingsWrite(ctx, key);
  const stored = await getSettings(
    { db: ctx.services.db, siteId: ctx.site.id },
    key,
  );
  return {
    ctx,
    data: {
      title,
      shell,
      document: stored.document,
      revision: stored.revision,
      notice: c.req.query("done") === "saved" ? "Saved." : undefined,
      problems: [],
    },
  };
}

/**
 * Saves `document` pinned to the revision the page showed. A refusal answers what the page
 * shows instead: the typed document, the problems by path, and (after someone else saved)
 * the new revision, so saving again knowingly replaces theirs.
 */
export async function saveDocument<K extends SettingsKey>(
  ctx: AdminContext,
  key: K,
  document: unknown,
  expectedRevision: number,
): Promise<
  { ok: true } | {
    ok: false;
    status: 409 | 422;
    alert: string;
    problems: SettingsProblem[];
    revision: number;
  }
> {
  const saved = await putSettings(
    {
      db: ctx.services.db,
      clock: ctx.services.clock,
      siteId: ctx.site.id,
      personId: ctx.user.id,
    },
    key,
    { document, expectedRevision },
  );
  if (saved.ok) return { ok: true };
  if (saved.code === "conflict") {
    return {
      ok: false,
      status: 409,
      alert:
        "Someone saved these settings after you opened them. Your values are kept below: save again to replace theirs, or reload to see them.",
      problems: [],
      revision: saved.current_revision,
    };
  }
  return {
    ok: false,
    status: 422,
    alert: "Some settings need attention: see the messages beside them",
    problems: saved.problems,
    revision: expectedRevision,
  };
}

/**
 * Saves a posted document and answers: back to `path` with "Saved." on success; on a refusal the
 * page again from `load`, with the typed document, the refusal beside its fields and (after
 * someone else saved) their revision to pin the next save to.
 */
export async function saveAndAnswer<
  K extends SettingsKey,
  D extends DocumentData<K>,
>(
  c: Context<AppEnv>,
  ctx: AdminContext,
  options: {
    key: K;
    path: string;
    document: unknown;
    /** The revision the form posted. */
    revision: unknown;
    /** Reads the page's data with these values in place of the stored ones. */
    load(extra: Partial<D>): Promise<D>;
    /** More of the page to show beside a refusal. */
    extra?: Partial<D>;
  },
): Promise<HandlerResult> {
  const saved = await saveDocument(
    ctx,
    options.key,
    options.document,
    postedRevision(options.revision),
  );
  if (saved.ok) return c.redirect(`${options.path}?done=saved`, 303);
  const shown = {
    ...options.extra,
    document: options.document as SettingsDocument<K>,
    revision: saved.revision,
    alert: saved.alert,
    problems: saved.problems,
    notice: undefined,
  } as Partial<D>;
  return page(await options.load(shown), { status: saved.status });
}

/**
 * The whole handler of a settings-document page whose form maps to the document directly: GET
 * shows `load`, POST checks the permission, reads the document from the form and saves it with
 * {@link saveAndAnswer}. Pages with more than one kind of POST write their own.
 */
export function documentHandler<
  K extends SettingsKey,
  D extends DocumentData<K>,
>(options: {
  key: K;
  path: string;
  load(c: Context<AppEnv>, extra?: Partial<D>): Promise<D>;
  /** The document the posted form describes; the settings service checks it. */
  fromForm(form: Record<string, unknown>): unknown;
}) {
  return {
    async GET(c: Context<AppEnv>) {
      return page(await options.load(c));
    },
    async POST(c: Context<AppEnv>) {
      const form = await c.req.parseBody({ all: true });
      const ctx = await adminContext(c);
      requireSettingsWrite(ctx, options.key);
      return saveAndAnswer<K, D>(c, ctx, {
        key: options.key,
        path: options.path,
        document: options.fromForm(form),
        revision: form.revision,
        load: (shown) => options.load(c, shown),
      });
    },
  };
}

/** The messages of problems at `path` or inside it. */
export function problemsAt(
  problems: readonly SettingsProblem[],
  path: string,
): string[] {
  return problems.filter((p) =>
    p.path === path || p.path.startsWith(`${path}.`)
  ).map((p) => p.message);
}

/** A refusal in words beside a field; renders nothing when the field has none. */
export function FieldProblem(
  props: { problems: readonly SettingsProblem[]; path: string; id: string },
) {
  const messages = problemsAt(props.problems, props.path);
  if (messages.length === 0) return null;
  return <p class="field-error" id={props.id}>{messages.join("; ")}</p>;
}

/** The hidden fields every settings form posts: CSRF and the revision read. */
export function DocumentFormHead(
  props: { csrfToken: string; revision: number },
) {
  return (
    <>
      <input type="hidden" name="_csrf" value={props.csrfToken} />
      <input type="hidden" name="revision" value={String(props.revision)} />
    </>
  );
}

/** The notice and alert of a settings page. */
export function DocumentMessages(
  props: { notice?: string; alert?: string },
) {
  return (
    <>
      {props.notice && <p class="notice" role="status">{props.notice}</p>}
      {props.alert && <p class="alert" role="alert">{props.alert}</p>}
    </>
  );
}

/** The revision a form posted (0 when absent or not a number). */
export function postedRevision(value: unknown): number {
  const n = Number(value);
  return Number.isInteger(n) && n >= 0 ? n : 0;
}

/** Codes typed as a list: commas or spaces between them. */
export function codesOf(text: unknown): string[] {
  return String(text ?? "").split(/[\s,]+/).map((s) => s.trim()).filter(
    Boolean,
  );
}
