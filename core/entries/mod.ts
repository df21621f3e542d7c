// Entries: translation groups, language instances, versions, and the one lifecycle service that moves them.
export * from "./types.ts";
export * from "./audit.ts";
export * from "./lifecycle.ts";
export * from "./workflow.ts";
export { snapshotActor } from "./actor_snapshot.ts";
export * from "./model_validator.ts";
export * from "./purge.ts";
export * from "./version_restore.ts";
export * from "./dependents.ts";
export type { RelationPosition } from "./relation_writes.ts";
export { type UniqueRule, uniqueRules } from "./unique.ts";
