// Contract of the related-from write: which entries link to one entry through one relation field.
import { z } from "zod";
import { RELATED_FROM_WRITE_LIMIT } from "../../entries/related_from_write.ts";
import { entryId, entryParams, modelRef } from "./entries.ts";
import { languageCode } from "./languages.ts";
import { operation } from "./operation.ts";

const sourceIds = z.array(entryId).max(RELATED_FROM_WRITE_LIMIT);

/** `PUT /entries/{id}/related-from`. */
export const putEntryRelatedFrom = operation({
  name: "put-entry-related-from",
  description:
    "Every changed linking entry gets a new version, all in one transaction: either all change or none.",
  method: "PUT",
  path: "/entries/{id}/related-from",
  summary:
    "Set which entries of a model link to this one through a relation field, in one transaction; each changed entry gets a new version",
  tag: "entries",
  scope: "content:write",
  key: { retention: "short", settle: "rerun" },
  status: 200,
  params: entryParams,
  body: z.strictObject({
    model_id: modelRef.describe("The linking entries' model"),
    field: z.string().min(1).max(200).describe(
      "A top-level relation field of that model",
    ),
    locale: languageCode.optional().describe(
      "The language whose version each changed entry gets; required when the field keeps one list per language. Absent: each entry's primary language",
    ),
    set: sourceIds.describe(
      "The entries that link here afterwards (at most 100); new links go to the end of each list",
    ),
    expected_ids: sourceIds.describe(
      "The pin: the ids GET /entries/{id}/related-from answered for this model, field and list language (any order)",
    ),
  }),
  answer: z.strictObject({
    id: z.uuid(),
    model_id: z.string(),
    field: z.string(),
    locale: z.string().nullable().describe(
      "The list's language; null unless the field keeps one list per language",
    ),
    ids: z.array(z.uuid()),
    hidden: z.int().min(0).describe(
      "Linking entries the credential cannot read; never changed",
    ),
    written: z.array(z.strictObject({
      id: z.uuid(),
      locale: z.string(),
      version_id: z.uuid(),
      change: z.enum(["connect", "disconnect"]),
    })),
  }),
  errors: [
    "not_found",
    "field_not_found",
    "locale_denied",
    "field_denied",
    "version_conflict",
    "transition_unavailable",
    "field_validation_failed",
    "unique_value_taken",
    "relation_changed_concurrently",
    "relation_target_taken",
    "relation_target_not_found",
    "relation_duplicate_target",
    "audit_unavailable",
  ],
});

/** The operations of this file. */
export const RELATED_FROM_OPERATIONS = [putEntryRelatedFrom] as const;
