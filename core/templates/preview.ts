// Previews of a candidate (spec 3 part 4.8 rule 2, site:infra): a fixture or a saved page drawn
// by the preview service in the sandbox. The service receives only the chosen page, its title
// and locale, and the published answers of its Latest entries sections; nothing is stored.
import { sql } from "kysely";
import { parsePageDocument } from "../pages/mod.ts";
import { artifactKey, readArtifact } from "./artifacts.ts";
import {
  CURRENT_PAGE_CONTRACT,
  findCandidate,
  type TemplateContext,
  type Unavailable,
  unavailable,
} from "./candidates.ts";
import {
  FIXTURE_PICTURE_SVG,
  FIXTURE_PICTURE_URL,
  fixtureCalls,
  type FixtureName,
  pageCall,
  type TemplateCall,
} from "./fixtures.ts";
import { checkPreviewLists, listPathsOf } from "./preview_lists.ts";
import { artifactsDir } from "./settings.ts";

/** What to preview: a fixture, or a saved page in one language. */
export type PreviewChoice =
  | { fixture: FixtureName }
  | { page_id: string; locale: string };

/** Why a preview was refused. */
export type PreviewRefusal =
  | Unavailable
  | { ok: false; code: "not_found" }
  | {
    ok: false;
    code: "template_contract_outdated";
    built: number;
    current: number;
  }
  | { ok: false; code: "candidate_unreadable"; reason: string }
  | { ok: false; code: "preview_payload_too_large"; limit: string }
  | { ok: false; code: "preview_failed"; detail: string }
  | { ok: false; code: "unreadable_page"; detail: string };

/** Reads the published answer of one list path; null when it cannot be read. */
export type ListReader = (path: string) => Promise<string | null>;

/** Options of {@link previewCandidate}. */
export interface PreviewOptions {
  candidateId: string;
  choice: PreviewChoice;
  /** Where the candidate's assets are served to the admin (the HTML's `/_site/` points there). */
  assetBase: string;
  readList: ListReader;
}

const PICTURE_DATA = `data:image/svg+xml;base64,${btoa(FIXTURE_PICTURE_SVG)}`;

/** Draws a preview; answers the HTML or a refusal. */
export async function previewCandidate(
  ctx: TemplateContext,
  options: PreviewOptions,
): Promise<{ ok: true; html: string } | PreviewRefusal> {
  const closed = unavailable(ctx.settings, "preview");
  if (closed) return closed;
  const candidate = await findCandidate(ctx, options.candidateId);
  if (!candidate) return { ok: false, code: "not_found" };
  if (candidate.contract !== CURRENT_PAGE_CONTRACT) {
    return {
      ok: false,
      code: "template_contract_outdated",
      built: candidate.contract,
      current: CURRENT_PAGE_CONTRACT,
    };
  }
  const compiled = await compiledFiles(ctx, candidate.id);
  if (!compiled.ok) return compiled;
  let call: TemplateCall;
  const lists: Record<string, string> = {};
  if ("fixture" in options.choice) {
    // The admin's display policy allows no outside picture: the fixture's travels inline.
    call = JSON.parse(
      JSON.stringify(fixtureCalls(options.choice.fixture)[0]).replaceAll(
        FIXTURE_PICTURE_URL,
        PICTURE_DATA,
      ),
    );
  } else {
    const page = await savedPage(ctx, options.choice);
    if (!page.ok) return page;
    call = pageCall("page", page.title, page.document);
    (call.view.site as Record<string, unknown>).locale = options.choice.locale;
    (call.view.item as Record<string, unknown>).locale = options.choice.locale;
    for (const path of listPathsOf(page.document, options.choice.locale)) {
      const answer = await options.readList(path);
      if (answer !== null) lists[path] = answer;
    }
    // Larger payloads are refused here, before anything reaches the preview service.
    const limits = checkPreviewLists(lists);
    if (!limits.ok) return limits;
  }
  let response: Response;
  try {
    response = await (ctx.fetch ?? fetch)(
      `${ctx.settings.TEMPLATE_PREVIEW_SERVICE_URL}/preview`,
      {
        method: "POST",
        headers: {
          authorization: `Bearer ${ctx.settings.TEMPLATE_PREVIEW_SERVICE_KEY}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({
          template: compiled.files["template.js"],
          call,
          lists,
        }),
        signal: AbortSignal.timeout(60_000),
      },
    );
  } catch {
    return {
      ok: false,
      code: "preview_failed",
      detail: "The preview service did not answer",
    };
  }
  const answer = await response.json() as {
    html?: string;
    error?: { code: string; detail?: string; limit?: string };
  };
  if (response.status !== 200 || typeof answer.html !== "string") {
    if (answer.error?.code === "preview_payload_too_large") {
      return {
        ok: false,
        code: "preview_payload_too_large",
        limit: answer.error.limit ?? "",
      };
    }
    return {
      ok: false,
      code: "preview_failed",
      detail: answer.error?.detail ??
        `The preview service answered ${response.status}`,
    };
  }
  return {
    ok: true,
    html: inlineStylesheets(answer.html, compiled.files).replaceAll(
      '"/_site/',
      `"${options.assetBase}`,
    ),
  };
}

/**
 * Puts the candidate's own stylesheets inside the preview: the display policy sandboxes the
 * preview into an opaque origin, whose requests carry no session to fetch them with.
 */
export function inlineStylesheets(
  html: string,
  files: Record<string, string>,
): string {
  return html.replace(/<link\b[^>]*>/gi, (tag) => {
    if (!/\brel=["']?stylesheet\b/i.test(tag)) return tag;
    const href = /\bhref=["']\/_site\/([^"']+)["']/i.exec(tag)?.[1];
    const css = href === undefined ? undefined : files[`assets/${href}`];
    if (css === undefined) return tag;
    return `<style>${css.replace(/<\/style/gi, "<\\/style")}</style>`;
  });
}

/** The compiled files of a candidate, checked against their digest. */
export async function compiledFiles(
  ctx: TemplateContext,
  candidateId: string,
): Promise<
  { ok: true; files: Record<string, string> } | {
    ok: false;
    code: "candidate_unreadable";
    reason: string;
  }
> {
  const row = await ctx.db.selectFrom("template_candidates").select(
    "compiled_digest",
  )
    .where("site_id", "=", ctx.siteId).where("id", "=", candidateId)
    .executeTakeFirstOrThrow();
  const read = await readArtifact(
    artifactsDir(ctx.settings),
    artifactKey(ctx.siteId, candidateId, "compiled.json"),
    row.compiled_digest,
  );
  if (!read.ok) {
    return { ok: false, code: "candidate_unreadable", reason: read.reason };
  }
  return { ok: true, files: read.value as Record<string, string> };
}

/** A saved page's current version in one language: its document and title. */
async function savedPage(
  ctx: TemplateContext,
  choice: { page_id: string; locale: string },
): Promise<
  | {
    ok: true;
    title: string;
    document: import("../pages/mod.ts").PageDocument;
  }
  | { ok: false; code: "not_found" }
  | { ok: false; code: "unreadable_page"; detail: string }
> {
  if (!/^[0-9a-f-]{36}$/.test(choice.page_id)) {
    return { ok: false, code: "not_found" };
  }
  const row = await ctx.db.selectFrom("entries as e")
    // entries.model_id is text, models.id a uuid.
    .innerJoin(
      "models as m",
      (j) => j.on(sql`m.id::text`, "=", sql.ref("e.model_id")),
    )
    .innerJoin("entry_versions as v", "v.id", "e.current_version_id")
    .select(["v.fields"])
    .where("e.site_id", "=", ctx.siteId).where("m.slug", "=", "pages")
    .where("e.group_id", "=", choice.page_id).where(
      "e.locale",
      "=",
      choice.locale,
    )
    .executeTakeFirst();
  if (!row) return { ok: false, code: "not_found" };
  const fields =
    (typeof row.fields === "string"
      ? JSON.parse(row.fields)
      : row.fields) as Record<string, unknown>;
  const parsed = parsePageDocument(fields.slides);
  if (!parsed.ok) {
    return { ok: false, code: "unreadable_page", detail: parsed.error.message };
  }
  return {
    ok: true,
    title: String(fields.title ?? ""),
    document: parsed.value,
  };
}
