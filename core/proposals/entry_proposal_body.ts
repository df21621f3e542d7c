// Checks the body of an entry proposal: its limits (spec 2 part 8) and its fields against the entry's model.
import { walkFields } from "../models/definition.ts";
import type { FieldDefinition } from "../models/field_types.ts";
import type { Problem } from "../models/problems.ts";
import type { StoredModel } from "../models/store_rows.ts";
import { isId } from "../entries/store.ts";
import { characterCount, jsonBytes, type ProposalRefusal } from "./types.ts";

/** Limits of one entry proposal (spec 2 part 8, ENT-021, ENT-022). */
export const ENTRY_PROPOSAL_LIMITS = {
  /** Value fields in `fields`. */
  fields: 50,
  /** UTF-8 bytes of the values written as JSON, summed over the fields. */
  valueBytes: 64 * 1024,
  /** Characters (code points) of `note`. */
  noteCharacters: 2000,
} as const;

/** A body that passed {@linkcode checkProposalBody}. */
export interface ProposalBody {
  base_version_id: string;
  fields: Record<string, unknown>;
  note: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Checks what needs no database: a version id pin, one to 50 fields whose values (JSON)
 * are at most 64 KiB together, and a note of at most 2,000 characters. Every problem is
 * answered at once as `invalid_request`.
 */
export function checkProposalBody(
  input: { base_version_id?: unknown; fields?: unknown; note?: unknown },
): { ok: true; body: ProposalBody } | ProposalRefusal {
  const problems: Problem[] = [];
  const problem = (path: string, message: string) =>
    problems.push({ path, code: "invalid_request", message });
  if (!isId(input.base_version_id)) {
    problem(
      "base_version_id",
      "Expected the id of the version the proposal starts from",
    );
  }
  const fields = isPlainObject(input.fields) ? input.fields : null;
  if (!fields) {
    problem("fields", "Expected an object of field keys to values");
  } else {
    const keys = Object.keys(fields);
    const { fields: most, valueBytes } = ENTRY_PROPOSAL_LIMITS;
    if (keys.length === 0) problem("fields", "Expected at least one field");
    if (keys.length > most) {
      problem("fields", `Expected at most ${most} fields, got ${keys.length}`);
    }
    const bytes = keys.reduce((sum, key) => sum + jsonBytes(fields[key]), 0);
    if (bytes > valueBytes) {
      problem(
        "fields",
        `Expected at most ${valueBytes} bytes of values, got ${bytes}`,
      );
    }
  }
  const note = input.note ?? "";
  if (typeof note !== "string") {
    problem("note", "Expected text");
  } else if (characterCount(note) > ENTRY_PROPOSAL_LIMITS.noteCharacters) {
    problem(
      "note",
      `Expected at most ${ENTRY_PROPOSAL_LIMITS.noteCharacters} characters, got ${
        characterCount(note)
      }`,
    );
  }
  if (problems.length > 0) {
    return { ok: false, code: "invalid_request", problems };
  }
  return {
    ok: true,
    body: {
      base_version_id: (input.base_version_id as string).toLowerCase(),
      fields: fields!,
      note: note as string,
    },
  };
}

/** True for a field a proposal cannot carry: a relation, a media field, or a component holding one. */
function unsupported(field: FieldDefinition): boolean {
  let found = false;
  walkFields([field], (f) => {
    if (f.type === "relation" || f.type === "media") found = true;
  });
  return found;
}

/**
 * Checks the proposed keys against the model: a key the model lacks is `field_not_found`,
 * a relation or media field (or a component holding one) is `proposal_field_unsupported`;
 * each names the fields.
 */
export function checkProposalFields(
  model: StoredModel,
  keys: readonly string[],
): ProposalRefusal | null {
  const byKey = new Map(model.fields.map((f) => [f.key, f]));
  const unknown = keys.filter((key) => !byKey.has(key));
  if (unknown.length > 0) {
    return { ok: false, code: "field_not_found", fields: unknown };
  }
  const refused = keys.filter((key) => unsupported(byKey.get(key)!));
  if (refused.length > 0) {
    return { ok: false, code: "proposal_field_unsupported", fields: refused };
  }
  return null;
}
