// The permission model: vocabulary, actors, authority, the one decision function, grant ceilings and roles.
export * from "./permissions.ts";
export * from "./scopes.ts";
export * from "./commands.ts";
export * from "./actor.ts";
export * from "./authority.ts";
export * from "./decide.ts";
export * from "./grants.ts";
export * from "./limits.ts";
export * from "./default_roles.ts";
export * from "./roles.ts";
