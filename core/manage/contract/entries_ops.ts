// The entry and Trash operations of the contract, for `OPERATIONS` in mod.ts.
export { ENTRY_OPERATIONS } from "./entries.ts";
export { ENTRY_MORE_OPERATIONS } from "./entries_more.ts";
