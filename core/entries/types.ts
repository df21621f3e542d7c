// The shapes the entry lifecycle speaks: its context, refusals, actor snapshots and workflow states.
import type { Actor } from "../access/actor.ts";
import type { Authority, AuthorityRefusalCode } from "../access/authority.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import type { ValueProblem } from "../models/validate_values.ts";
import type { AuditWriter } from "./audit.ts";
import type { ActorSnapshot } from "./actor_snapshot.ts";

/**
 * Validates one language's values against the entry's current model, answering every
 * problem by full path. {@linkcode modelValidator} answers it with the models module.
 */
export type EntryValidator = (
  request: ValidationRequest,
) => readonly ValueProblem[] | Promise<readonly ValueProblem[]>;

/** What an {@linkcode EntryValidator} is asked, inside the command's transaction. */
export interface ValidationRequest {
  db: Db;
  siteId: string;
  modelId: string;
  values: Record<string, unknown>;
  mode: "save" | "publish";
  locale: string;
}

/** What every lifecycle command needs: the site, who acts, and the stores. */
export interface LifecycleContext {
  db: Db;
  clock: Clock;
  /** The site, taken from the credential or Host, never from a request field. */
  siteId: string;
  actor: Actor;
  /** Writes the admin audit entry inside the command's transaction; defaults to the ledger table. */
  audit?: AuditWriter;
  /** Field validation, normally {@linkcode modelValidator}; absent skips validation. */
  validate?: EntryValidator;
  /** Id source, injectable for tests; defaults to `crypto.randomUUID`. */
  newId?: () => string;
  /** Trace of the request, copied into the workflow event and audit entry (spec 1 part 2.9). */
  trace?: CommandTrace;
  /**
   * Runs every check and change, then rolls the transaction back and answers what the command
   * would have answered: how plugin policies learn that the service's own checks passed.
   */
  dryRun?: boolean;
  /**
   * The actor's authority when the caller loaded it a moment ago for its own checks (a plugin's
   * delegation): the command uses it instead of reading the same role again.
   */
  authority?: Authority;
  /**
   * Who acts, as the caller read it a moment ago with its authority (a Management API
   * credential): the command names it in its events and audit entry instead of reading it again.
   */
  actorSnapshot?: ActorSnapshot;
}

/** Request facts kept with the audit of a command; never the raw idempotency key. */
export interface CommandTrace {
  /** SHA-256 digest of the idempotency key. */
  idempotency_key_digest?: string;
  /** Protocol version a plugin spoke. */
  protocol_version?: string;
}

export type { ActorSnapshot } from "./actor_snapshot.ts";

/** The workflow state of a group or one language instance. */
export type EntryState = "draft" | "published" | "trashed";

/** Every refusal code a lifecycle command may answer. */
export type LifecycleRefusalCode =
  | AuthorityRefusalCode
  | "not_found"
  | "unknown_locale"
  | "missing_permission"
  | "locale_denied"
  | "field_denied"
  | "version_conflict"
  | "workflow_conflict"
  | "transition_unavailable"
  | "field_validation_failed"
  | "slug_taken"
  /** 409: a page address the service keeps for its own routes. */
  | "slug_reserved"
  /** 409: the page would be published without an address; nothing is published. */
  | "page_address_required"
  | "audit_unavailable"
  | "temporary_failure"
  /** 422: the named person may not act on the entry's model (assignment). */
  | "assignee_not_eligible"
  | EntryRuleRefusalCode;

/** Refusals of the entry rules: single-entry models, unique values and relations (see `rules.ts`). */
export type EntryRuleRefusalCode =
  /** 409: the single-entry model already holds its entry (Trash counts). */
  | "single_entry_exists"
  /** 409: another entry holds the unique value or combination. */
  | "unique_value_taken"
  /** 409: another entry holds the target in a one-to-one or one-to-many field. */
  | "relation_target_taken"
  /** 422: missing, wrong-model, unreadable, or (newly chosen) trashed targets. */
  | "relation_target_not_found"
  /** 422: a target named twice in one list, or connected while already linked. */
  | "relation_duplicate_target"
  /** 422: a position or move on a to-one or unordered field. */
  | "relation_position_not_ordered";

/** A typed refusal; nothing was written. */
export interface LifecycleRefusal {
  ok: false;
  code: LifecycleRefusalCode;
  /** Unmet needs (`missing_permission`). */
  missing?: string[];
  /** Refused languages (`locale_denied`). */
  languages?: string[];
  /** Refused fields (`field_denied`). */
  fields?: string[];
  /** Each problem by full path and language (`field_validation_failed`). */
  errors?: ValueProblem[];
  /** The entry holding what was asked for (`single_entry_exists`, `unique_value_taken`). */
  existing?: { group_id: string };
  /** The unique rule refused (`unique_value_taken`). */
  unique?: UniqueRuleRef;
  /** The relation field and refused target ids (`relation_*`). */
  relation?: { field: string; locale: string | null; ids: string[] };
}

/** A unique rule named in a refusal: one field, or a named combination of fields. */
export interface UniqueRuleRef {
  kind: "field" | "combination";
  name: string;
  fields: string[];
  /** `model`, or `language` with the language in `locale`. */
  scope: "model" | "language";
  locale: string | null;
}

/** The state of one language instance after a command. */
export interface InstanceState {
  entry_id: string;
  locale: string;
  slug: string;
  current_version_id: string | null;
  published_version_id: string | null;
  published_at: Date | null;
}

/** What a successful command answers: the group's workflow facts after it. */
export interface LifecycleResult {
  ok: true;
  group_id: string;
  model_id: string;
  state: EntryState;
  revision: number;
  current_version_id: string | null;
  published_version_id: string | null;
  instances: InstanceState[];
}

/** The answer of every lifecycle command. */
export type LifecycleOutcome = LifecycleResult | LifecycleRefusal;
