// The shapes proposals speak: states, sources, refusals and the context a proposal command needs.
import type { ActorSnapshot, LifecycleRefusalCode } from "../entries/types.ts";
import type { ValueProblem } from "../models/validate_values.ts";
import type { Problem } from "../models/problems.ts";

/** Where a proposal is in its life (spec 2 part 3). */
export type ProposalState = "open" | "applied" | "dismissed";

/** Every proposal state, for list filters. */
export const PROPOSAL_STATES: readonly ProposalState[] = [
  "open",
  "applied",
  "dismissed",
];

/**
 * Who made a proposal (spec 2 part 2.2): a management credential, a plugin acting for a
 * person (`requested_by` is that person, kept by email so attribution outlives the
 * account), an AI batch job (`id` names the job), or a person in the admin.
 */
export type ProposalSource =
  | { kind: "management"; id: string; label: string }
  | {
    kind: "plugin";
    id: string;
    label: string;
    requested_by: { person_id: string; email: string };
  }
  | { kind: "ai"; id: string; label: string }
  | { kind: "person"; id: string; label: string };

/** An AI batch job a proposal comes from; recorded as its `{ kind: "ai" }` source. */
export interface AiJob {
  id: string;
  label: string;
}

/** Every refusal code a proposal command may answer. */
export type ProposalRefusalCode =
  | LifecycleRefusalCode
  | "invalid_request"
  | "field_not_found"
  | "proposal_field_unsupported"
  | "proposal_stale"
  | "proposal_not_open"
  | "schema_proposal_stale"
  | "forbidden";

/** A typed refusal of a proposal command; nothing was written. */
export interface ProposalRefusal {
  ok: false;
  code: ProposalRefusalCode;
  /** Unmet needs (`missing_permission`). */
  missing?: string[];
  /** Refused languages (`locale_denied`, `unknown_locale`). */
  languages?: string[];
  /** Named fields (`field_not_found`, `proposal_field_unsupported`, `field_denied`). */
  fields?: string[];
  /** What is wrong with the body, by path (`invalid_request`). */
  problems?: Problem[];
  /** Field problems of the save an apply ran (`field_validation_failed`). */
  errors?: ValueProblem[];
}

/** The source a proposal records for the actor who made it. */
export function sourceOf(
  actor: ActorSnapshot,
  aiJob?: AiJob,
): ProposalSource {
  if (aiJob) return { kind: "ai", id: aiJob.id, label: aiJob.label };
  switch (actor.kind) {
    case "credential":
      return { kind: "management", id: actor.credential_id, label: actor.name };
    case "plugin":
      return {
        kind: "plugin",
        id: actor.installation_id,
        label: actor.name,
        requested_by: { person_id: actor.person_id, email: actor.person_email },
      };
    case "person":
      return { kind: "person", id: actor.person_id, label: actor.email };
  }
}

/** Counts characters as people do (code points), so an emoji is one. */
export function characterCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** UTF-8 bytes of a value written as JSON. */
export function jsonBytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value) ?? "").length;
}
