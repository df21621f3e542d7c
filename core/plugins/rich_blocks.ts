// This module is browser compatible.
// Checks a plugin block stored in rich text against its plugin's declaration: registered, known version, valid values.
import type { Control, ManifestRichBlock } from "./manifest.ts";

/** A block as rich text stores it (`figure[data-block][data-type][data-version][data-values]`). */
export interface StoredRichBlock {
  /** The plugin id (`data-block`). */
  block: string;
  /** The block type the plugin declares (`data-type`). */
  type: string;
  version: number;
  values: Record<string, unknown>;
}

/** One problem with a block's values. */
export interface RichBlockIssue {
  path: string;
  message: string;
}

/** The answer of checkRichBlock(). */
export type RichBlockCheck =
  | {
    ok: true;
    /** The values moved to the declared version by its migration steps. */
    values: Record<string, unknown>;
    version: number;
  }
  | {
    ok: false;
    code:
      | "rich_block_unregistered"
      | "rich_block_version_unknown"
      | "rich_block_values_invalid";
    message: string;
    issues: RichBlockIssue[];
  };

/**
 * Checks one stored block. `blocksOf` answers the rich blocks an active installation of
 * that plugin declares on the site (undefined when none is active). An older version is
 * migrated forward through the declared steps, then validated like a new one.
 */
export function checkRichBlock(
  stored: StoredRichBlock,
  blocksOf: (pluginId: string) => readonly ManifestRichBlock[] | undefined,
): RichBlockCheck {
  const declared = blocksOf(stored.block)?.find((b) => b.type === stored.type);
  if (!declared) {
    return {
      ok: false,
      code: "rich_block_unregistered",
      message:
        `Block "${stored.block}" "${stored.type}" is not registered by an active plugin on this site`,
      issues: [],
    };
  }
  if (stored.version > declared.version) {
    return {
      ok: false,
      code: "rich_block_version_unknown",
      message:
        `Block "${stored.type}" version ${stored.version} is newer than the registered version ${declared.version}`,
      issues: [],
    };
  }
  const values = migrateRichBlockValues(
    declared,
    stored.version,
    stored.values,
  );
  const issues = richBlockValueIssues(declared, values);
  if (issues.length > 0) {
    return {
      ok: false,
      code: "rich_block_values_invalid",
      message: `Block "${stored.type}" values are invalid: ${
        issues.slice(0, 3).map((i) => `${i.path}: ${i.message}`).join("; ")
      }`,
      issues,
    };
  }
  return { ok: true, values, version: declared.version };
}

/** Applies the declared migration steps from `fromVersion` up to the block's version. */
export function migrateRichBlockValues(
  block: Pick<ManifestRichBlock, "version" | "migrations">,
  fromVersion: number,
  values: Record<string, unknown>,
): Record<string, unknown> {
  let current = { ...values };
  for (let version = fromVersion; version < block.version; version++) {
    const step = block.migrations.find((m) => m.from === version);
    if (!step) continue;
    for (const op of step.steps) {
      if (op.op === "rename") {
        if (Object.hasOwn(current, op.from)) {
          const { [op.from]: moved, ...rest } = current;
          current = { ...rest, [op.to]: moved };
        }
      } else if (op.op === "set_default") {
        if (!Object.hasOwn(current, op.field) || current[op.field] === null) {
          current = { ...current, [op.field]: op.value };
        }
      } else {
        const { [op.field]: _removed, ...rest } = current;
        current = rest;
      }
    }
  }
  return current;
}

/** Every problem of `values` against the block's controls and rules (closed: unknown keys too). */
export function richBlockValueIssues(
  block: Pick<ManifestRichBlock, "controls" | "rules">,
  values: Record<string, unknown>,
): RichBlockIssue[] {
  const issues: RichBlockIssue[] = [];
  checkObject(block.controls, values, "", issues);
  for (const rule of block.rules) {
    if (rule.kind === "required_when") {
      if (
        values[rule.when.field] === rule.when.equals &&
        isEmpty(values[rule.field])
      ) {
        issues.push({
          path: rule.field,
          message: rule.message ??
            `Required when "${rule.when.field}" is ${
              JSON.stringify(rule.when.equals)
            }`,
        });
      }
    } else if (rule.fields.every((f) => isEmpty(values[f]))) {
      issues.push({
        path: rule.fields.join(","),
        message: rule.message ?? `One of ${rule.fields.join(", ")} is required`,
      });
    }
  }
  return issues;
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === "" ||
    (Array.isArray(value) && value.length === 0);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkObject(
  controls: readonly Control[],
  values: unknown,
  prefix: string,
  issues: RichBlockIssue[],
): void {
  const at = (name: string) => prefix === "" ? name : `${prefix}.${name}`;
  if (!isRecord(values)) {
    issues.push({ path: prefix || "values", message: "Expected an object" });
    return;
  }
  const names = new Set(controls.map((c) => c.name));
  for (const key of Object.keys(values)) {
    if (!names.has(key)) {
      issues.push({ path: at(key), message: "Not a declared control" });
    }
  }
  for (const control of controls) {
    const value = values[control.name];
    const path = at(control.name);
    if (control.type === "group") {
      if (value === undefined || value === null) {
        if (control.min_items > 0) {
          issues.push({ path, message: `At least ${control.min_items} items` });
        }
        continue;
      }
      if (!Array.isArray(value)) {
        issues.push({ path, message: "Expected a list of items" });
        continue;
      }
      if (value.length > control.max_items) {
        issues.push({ path, message: `At most ${control.max_items} items` });
      }
      if (value.length < control.min_items) {
        issues.push({ path, message: `At least ${control.min_items} items` });
      }
      value.slice(0, control.max_items).forEach((item, i) =>
        checkObject(control.controls, item, `${path}.${i}`, issues)
      );
      continue;
    }
    if (isEmpty(value)) {
      if (control.required) issues.push({ path, message: "Required" });
      continue;
    }
    const problem = scalarProblem(control, value);
    if (problem !== null) issues.push({ path, message: problem });
  }
}

function scalarProblem(
  control: Exclude<Control, { type: "group" }>,
  value: unknown,
): string | null {
  switch (control.type) {
    case "text":
    case "textarea":
    case "rich": {
      if (typeof value !== "string") return "Expected text";
      const max = control.max_length ??
        (control.type === "text" ? 1000 : 20_000);
      return value.length > max ? `At most ${max} characters` : null;
    }
    case "url": {
      if (typeof value !== "string" || value.length > 2048) {
        return "Expected an https URL";
      }
      try {
        return new URL(value).protocol === "https:"
          ? null
          : "Expected an https URL";
      } catch {
        return "Expected an https URL";
      }
    }
    case "select":
      return typeof value === "string" &&
          (control.options ?? []).some((o) => o.value === value)
        ? null
        : "Not one of the options";
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) {
        return "Expected a number";
      }
      if (control.min !== undefined && value < control.min) {
        return `At least ${control.min}`;
      }
      if (control.max !== undefined && value > control.max) {
        return `At most ${control.max}`;
      }
      return null;
    case "boolean":
      return typeof value === "boolean" ? null : "Expected true or false";
    case "media":
    case "relation":
      return typeof value === "string" && value.length <= 100
        ? null
        : `Expected a ${control.type === "media" ? "media" : "content"} id`;
  }
}
