// What the managed-renderer routes share: the path's site must be the Host's site, bodies are
// closed objects, and release refusals map to statuses here.
import type { Context } from "hono";
import { z } from "zod";
import type { AppEnv } from "../web/env.ts";
import { refuse } from "../web/errors.ts";
import { readJsonBody } from "../web/json_body.ts";

/** Refuses 404 unless `{siteId}` names the site the Host header chose. */
export function requireSameSite(c: Context<AppEnv>): void {
  if ((c.req.param("siteId") ?? "").toLowerCase() !== c.var.site.id) {
    refuse(404, "not_found", "No such site here");
  }
}

/** Reads a closed JSON body or refuses `400 invalid_request`. */
export async function closedBody<T>(
  c: Context<AppEnv>,
  schema: z.ZodType<T>,
): Promise<T> {
  const parsed = schema.safeParse(await readJsonBody(c.req.raw));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    refuse(
      400,
      "invalid_request",
      `Invalid body.${issue.path.join(".")}: ${issue.message}`,
    );
  }
  return parsed.data;
}

/** `{ observed_active_number }`: the active release number the page was loaded with, or null. */
export const observedBody = z.strictObject({
  observed_active_number: z.number().int().min(1).nullable(),
});

const STATUS: Record<string, 400 | 404 | 409 | 502 | 503> = {
  template_operation_unavailable: 503,
  invalid_host: 400,
  release_not_found: 404,
  deploy_service_failed: 502,
};

const MESSAGES: Record<string, string> = {
  template_operation_unavailable: "Delivery needs settings that are not set",
  invalid_host: "Expected a host name such as www.example.com",
  address_unchanged: "The site already serves this host",
  address_change_retained:
    "Remove the previous address before changing it again",
  no_accepted_template: "Accept a template first",
  installation_id_changed:
    "MANAGED_RENDER_INSTALLATION_ID changed since the first release",
  release_not_found: "No such release",
  release_not_proven: "Only a proven release can take the address",
  active_release_changed:
    "The active release changed since this page was loaded",
  no_previous_address: "There is no previous address",
  address_rollback_expired: "Going back was possible for seven days only",
  published_pages_pin_missing_sections:
    "Published pages pin registered sections this release does not draw",
  search_page_address_taken:
    "Published pages use the search page's address while site search is on",
  deploy_service_failed: "The deploy service refused or did not answer",
  candidate_unreadable: "The template's stored files no longer match",
};

/** Throws the refusal a release operation answered. */
export function refuseRelease(refusal: { ok: false; code: string }): never {
  const { ok: _ok, code, ...details } = refusal as
    & { ok: false; code: string }
    & Record<string, unknown>;
  return refuse(STATUS[code] ?? 409, code, MESSAGES[code] ?? code, details);
}
