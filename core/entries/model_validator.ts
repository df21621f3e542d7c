// Field validation of entry values against the site's stored model, through the models module.
import { getModelOnce } from "../models/model_reads.ts";
import { isPageField, validateEntryValues } from "../models/validate_values.ts";
import { checkPageMediaKinds } from "../pages/media_check.ts";
import { checkSharedSections } from "../pages/shared.ts";
import { readCheckedSettings } from "../sites/settings.ts";
import { siteSectionRegistry } from "../templates/registry.ts";
import { pinsOfValues, undrawnPins } from "../templates/pins.ts";
import type { EntryValidator } from "./types.ts";

/** Options of {@linkcode modelValidator}. */
export interface ModelValidatorOptions {
  /**
   * Exact https origins allowed for rich-text embeds; by default the site's
   * `editorial.allowed_embed_origins`, read in the command's transaction.
   */
  embedOrigins?: readonly string[];
}

/**
 * An {@linkcode EntryValidator} that reads the entry's model as stored now (in the
 * command's transaction) and runs `validateEntryValues`. A model that is not on the site
 * is one problem at path `model_id` with code `not_found`.
 */
export function modelValidator(
  options: ModelValidatorOptions = {},
): EntryValidator {
  return async function validateWithModel(request) {
    const found = await getModelOnce(
      {
        db: request.db,
        siteId: request.siteId,
        clock: { now: () => new Date(0) },
      },
      request.modelId,
    );
    if (!found.ok) {
      return [{
        path: "model_id",
        code: "not_found",
        message: `Model "${request.modelId}" is not on this site`,
        locale: request.locale,
      }];
    }
    const embedOrigins = options.embedOrigins ??
      (await readCheckedSettings(
        { db: request.db, siteId: request.siteId },
        "editorial",
      ))?.allowed_embed_origins ?? [];
    const holdsPages = found.model.fields.some(isPageField);
    const problems = validateEntryValues(found.model, request.values, {
      mode: request.mode,
      locale: request.locale,
      embedOrigins,
      // A page's custom sections are read with the definitions the site's accepted templates
      // promoted; other models hold no pages, so they read none.
      sections: holdsPages
        ? await siteSectionRegistry(request.db, request.siteId)
        : undefined,
    });
    if (problems.length > 0 || !holdsPages) {
      return problems;
    }
    // Shared-section and media rules read other rows, so they run here beside the database.
    const shared = await checkSharedSections(request.db, {
      siteId: request.siteId,
      modelSlug: found.model.slug,
      values: request.values,
      mode: request.mode,
      locale: request.locale,
    });
    if (shared.length > 0) return shared;
    const media = await checkPageMediaKinds(request.db, {
      siteId: request.siteId,
      values: request.values,
      locale: request.locale,
    });
    if (media.length > 0 || request.mode !== "publish") return media;
    // TPL-028: a published page must be drawable by the active release; pages without
    // registered sections cost no statement here.
    const undrawn = await undrawnPins(
      request.db,
      request.siteId,
      pinsOfValues(request.values),
    );
    return undrawn.map((p) => ({
      path: p.path,
      code: "renderer_capability_exceeded",
      message:
        `The active template does not draw ${p.key} version ${p.version}`,
      locale: request.locale,
    }));
  };
}
