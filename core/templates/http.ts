// What the managed-template routes share: the person's permission, the context of template
// commands, and the one mapping of template refusals to statuses.
import type { Context } from "hono";
import { decide } from "../access/decide.ts";
import { adminContext } from "../admin/context.ts";
import type { AppEnv } from "../web/env.ts";
import { refuse } from "../web/errors.ts";
import type { TemplateContext } from "./candidates.ts";

/** Loads the person's context and refuses 403 unless they hold every permission named. */
export async function templateContext(
  c: Context<AppEnv>,
  permissions: ("site:deploy" | "site:infra" | "ai:generate")[],
): Promise<TemplateContext> {
  const ctx = await adminContext(c);
  const missing = permissions.flatMap((action) => {
    const decision = decide(ctx.authority, { action });
    return decision.ok ? [] : [action];
  });
  if (missing.length > 0) {
    refuse(403, "missing_permission", `This needs ${missing.join(" and ")}`, {
      missing,
    });
  }
  return {
    db: ctx.services.db,
    clock: ctx.services.clock,
    siteId: ctx.site.id,
    userId: ctx.user.id,
    settings: ctx.services.config.templateSettings,
  };
}

const STATUS: Record<string, 400 | 404 | 409 | 413 | 422 | 502 | 503> = {
  preview_payload_too_large: 413,
  preview_failed: 422,
  unreadable_page: 422,
  template_operation_unavailable: 503,
  invalid_template_manifest: 400,
  template_source_refused: 400,
  unknown_region: 400,
  template_checks_failed: 422,
  template_build_unavailable: 502,
  template_contract_outdated: 409,
  stale_document: 409,
  section_pins_stranded: 409,
  candidate_unreadable: 409,
  platform_template_unavailable: 503,
  not_found: 404,
};

const MESSAGES: Record<string, string> = {
  template_operation_unavailable:
    "This template operation needs settings that are not set",
  invalid_template_manifest: "The manifest does not read",
  template_source_refused: "A source rule refused the files",
  template_checks_failed: "The candidate did not pass every check",
  template_build_unavailable: "The build service could not be reached",
  template_contract_outdated:
    "The candidate was built against another page contract: build it again",
  stale_document: "Another template was accepted since this page was loaded",
  section_pins_stranded:
    "Pages pin registered section versions this candidate no longer includes",
  candidate_unreadable: "The candidate's stored files no longer match",
  not_found: "No such candidate or page on this site",
  preview_payload_too_large:
    "The page's Latest entries lists are larger than a preview takes",
  preview_failed: "The candidate could not draw this preview",
  unreadable_page: "The saved page does not read",
};

/** Throws the refusal a template command answered. */
export function refuseTemplate(refusal: { ok: false; code: string }): never {
  const { ok: _ok, code, ...details } = refusal as
    & { ok: false; code: string }
    & Record<string, unknown>;
  return refuse(STATUS[code] ?? 400, code, MESSAGES[code] ?? code, details);
}
