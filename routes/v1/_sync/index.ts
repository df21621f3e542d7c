// GET /v1/_sync: bounded snapshot, then ordered changes with signed checkpoints (spec 3 part 4.5).
import { PUBLIC_QUERY_PARAMETERS } from "../../../core/public/query_parameters.ts";
import type { Context } from "hono";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";
import { boundedInt, singleParams } from "../../../core/sync/query.ts";
import { readSync, SYNC_LIMITS } from "../../../core/sync/read_sync.ts";
import type { SiteTokenScope } from "../../../core/public/site_tokens.ts";
import { modelsInScope } from "../../../core/sync/models_in_scope.ts";
import { expandMedia } from "../../../core/public/media_expand.ts";
import { localeChain } from "../../../core/sites/locale_chain.ts";
import { syncReaderFor } from "../../../core/sync/replica_fresh.ts";

export const handler = {
  async GET(c: Context<AppEnv>) {
    const { clock } = c.var.services;
    const site = c.var.site;
    const parsed = singleParams(
      new URL(c.req.url),
      PUBLIC_QUERY_PARAMETERS.sync,
    );
    if (!parsed.ok) refuse(400, "sync_query_invalid", parsed.message);
    const { params } = parsed;
    const limit = boundedInt(
      params.limit,
      SYNC_LIMITS.min,
      SYNC_LIMITS.max,
      SYNC_LIMITS.default,
    );
    if (limit === null) {
      refuse(400, "sync_query_invalid", "Expected limit from 1 to 100", {
        min: SYNC_LIMITS.min,
        max: SYNC_LIMITS.max,
      });
    }
    // On a read replica, a checkpoint newer than what it has replayed is answered by the primary.
    const db = await syncReaderFor(c.var.services.db, site.id, params.cursor);
    // Verified (or refused 404) by the /v1 middleware.
    const token: SiteTokenScope | null = c.get("siteToken");
    const models = await modelsInScope(db, site.id, token?.modelIds ?? []);
    const outcome = await readSync({ db, clock }, {
      site,
      models,
      scope: token?.id ?? "public",
      limit,
      cursor: params.cursor,
      model: params.model,
      locale: params.locale,
    });
    if (!outcome.ok) {
      switch (outcome.code) {
        case "sync_query_invalid":
          refuse(400, outcome.code, outcome.message);
          break;
        case "reset_required":
          refuse(409, outcome.code, "Start a new snapshot", {
            reset_reason: outcome.reset_reason,
          });
          break;
        case "sync_dependency_unavailable":
          refuse(
            503,
            outcome.code,
            "The change log cannot be read now: retry the same checkpoint",
            {},
            { "Retry-After": "5", "Cache-Control": "no-store" },
          );
      }
    }
    // Media references become the media's public fields, as in list and single reads (SYNC-003).
    const plan = c.var.publicContext.localePlan;
    const locale = outcome.answer.data[0]?.locale ?? site.defaultLanguage;
    await expandMedia(db, outcome.answer.data as never, {
      siteId: site.id,
      chain: plan
        ? localeChain(
          plan.policy,
          params.locale ?? locale,
          plan.defaultLanguage,
        )
        : [locale],
      publicUrl: c.var.services.config.publicUrl,
    });
    return c.json(outcome.answer, 200, { "Cache-Control": "no-store" });
  },
};
