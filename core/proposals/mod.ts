// Proposals: entry proposals a person applies as a pinned save, and model proposals applied as a model save.
export * from "./types.ts";
export type { CommandContext } from "./command.ts";
export { ENTRY_PROPOSAL_LIMITS } from "./entry_proposal_body.ts";
export type { EntryProposal } from "./entry_proposal_rows.ts";
export * from "./entry_proposals.ts";
export * from "./entry_proposal_decisions.ts";
export type { ModelProposal } from "./model_proposal_rows.ts";
export * from "./model_proposals.ts";
export * from "./model_proposal_decisions.ts";
