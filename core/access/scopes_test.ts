import { deepEqual, equal, ok } from "node:assert/strict";
import { COMMANDS } from "./commands.ts";
import {
  isModelAction,
  MODEL_ACTIONS,
  SYSTEM_PERMISSIONS,
} from "./permissions.ts";
import { ACTION_SCOPES, SCOPE_RULES, scopeHeld, SCOPES } from "./scopes.ts";

Deno.test("SCOPE_RULES covers every scope of spec 2 part 5.1 and each scope has a command (MCR-010..MCR-026)", () => {
  deepEqual(Object.keys(SCOPE_RULES).sort(), [...SCOPES].sort());
  const commanded = new Set(Object.values(COMMANDS).map((c) => c.scope));
  deepEqual([...SCOPES].filter((s) => !commanded.has(s)), []);
});

Deno.test("COMMANDS name a model exactly when they need a model permission", () => {
  for (const [id, rule] of Object.entries(COMMANDS)) {
    const needsModel = rule.requires.some((group) =>
      group.every((need) => isModelAction(need))
    );
    if (needsModel) ok(rule.model, `Command "${id}" needs a model permission`);
    if ("writes" in rule && rule.writes) ok(rule.model, `${id} writes fields`);
  }
});

Deno.test("ACTION_SCOPES names every permission, and only site:deploy and ai:generate are out of reach", () => {
  deepEqual(
    Object.keys(ACTION_SCOPES).sort(),
    [...MODEL_ACTIONS, ...SYSTEM_PERMISSIONS].sort(),
  );
  deepEqual(
    Object.entries(ACTION_SCOPES).filter(([, s]) => s.length === 0).map(([a]) =>
      a
    )
      .sort(),
    ["ai:generate", "site:deploy"],
  );
});

Deno.test("scopeHeld() always includes content:read and never limits a person", () => {
  equal(scopeHeld([], "content:read"), true);
  equal(scopeHeld([], "content:write"), false);
  equal(scopeHeld(["content:write"], "content:write"), true);
  equal(scopeHeld(null, "roles:write"), true);
});
