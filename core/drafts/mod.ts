// Working drafts: each person's unsaved work on an entry language, with explicit takeover.
export * from "./working_drafts.ts";
