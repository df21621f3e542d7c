// Handlers of the settings routes: the six documents of core/sites/settings.ts.
import {
  findSettingsWrite,
  getSettings as readSettings,
  putSettings as writeSettings,
} from "../../sites/settings.ts";
import type { SettingsKey } from "../../sites/settings_documents.ts";
import { refuse } from "../../web/errors.ts";
import { reviewRedirects } from "../../chrome/redirect_review.ts";
import * as contract from "../contract/settings.ts";
import { defineHandler, type ManageContext } from "../handler.ts";
import { refuseUnknownKeys } from "../input.ts";
import { requireAllowed } from "./require.ts";

/** Settings documents whose lost answer is proved from the write (spec 2, 4.3). */
const PROVED_KEYS: ReadonlySet<SettingsKey> = new Set(["chrome", "seo"]);

/** Search settings need `site:infra`; every other document `site:settings` (spec 2 part 5.1). */
function requireSettings(ctx: ManageContext, key: SettingsKey): void {
  requireAllowed(ctx, {
    action: key === "search" ? "settings.search" : "settings.write",
  });
}

/** `get-settings`: one document and its revision. */
export const getSettings = defineHandler(contract.getSettings, {
  async run(ctx, { params }) {
    requireSettings(ctx, params.key);
    const stored = await readSettings(
      { db: ctx.services.db, siteId: ctx.site.id },
      params.key,
    );
    return { body: stored };
  },
});

/** `put-settings`: replaces one document under its revision pin. */
export const putSettings = defineHandler(contract.putSettings, {
  async run(ctx, { params, body }) {
    requireSettings(ctx, params.key);
    const { db, clock } = ctx.services;
    const result = await writeSettings(
      {
        db,
        clock,
        siteId: ctx.site.id,
        personId: ctx.authority.personId,
        record: { actor: ctx.actor, keyDigest: ctx.keyDigest },
      },
      params.key,
      { document: body.document, expectedRevision: body.expected_revision },
    );
    if (!result.ok) {
      if (result.code === "conflict") {
        refuse(
          409,
          "conflict",
          `Settings "${params.key}" changed: expected revision ${body.expected_revision}, found ${result.current_revision}`,
          { current_revision: result.current_revision },
        );
      }
      if (result.code === "unknown_region") {
        // TPL-033: the active template declares the regions Site Chrome may fill.
        refuse(
          400,
          "unknown_region",
          `The active template declares no region "${result.region}"`,
          { region: result.region },
        );
      }
      refuseUnknownKeys(result.problems, "body.document.");
      refuse(400, "input_invalid", `Settings "${params.key}" are not valid`, {
        problems: result.problems,
      });
    }
    return { body: result.settings };
  },
  // MAPI-014: Site Chrome and SEO are one-batch commands, settled from the audit entry written
  // with them. Other documents have their own record: a retry runs again and meets its pin.
  async prove(ctx, { params }) {
    if (!ctx.keyDigest || !PROVED_KEYS.has(params.key)) return null;
    const settings = await findSettingsWrite(
      ctx.services.db,
      ctx.site.id,
      params.key,
      ctx.keyDigest,
    );
    return settings ? { body: settings } : null;
  },
});

/** `review-seo-redirects`: reviews a redirect list, or the stored one, without storing anything. */
export const reviewSeoRedirects = defineHandler(contract.reviewSeoRedirects, {
  async run(ctx, { body }) {
    requireSettings(ctx, "seo");
    const redirects = body.redirects ??
      (await readSettings({ db: ctx.services.db, siteId: ctx.site.id }, "seo"))
        .document.redirects;
    return {
      body: {
        reviewed: redirects.length,
        findings: reviewRedirects(redirects),
      },
    };
  },
});
