// Closed validation of a plugin operation's input against the fields its manifest declares
// (MPL-009): every key known, every value of its field's kind and within its limits.
import type { ManifestOperation } from "./manifest.ts";

/** Closed validation of an operation's input against its declared fields (MPL-009). */
export function checkOperationInput(
  op: ManifestOperation,
  input: Record<string, unknown>,
  languages: readonly string[],
): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  const fields = new Map(op.input.map((f) => [f.name, f]));
  for (const key of Object.keys(input)) {
    if (!fields.has(key)) {
      issues.push({ path: `input.${key}`, message: "unknown key" });
    }
  }
  for (const field of op.input) {
    const at = `input.${field.name}`;
    const value = input[field.name];
    if (value === undefined || value === null || value === "") {
      if (field.required) issues.push({ path: at, message: "required" });
      continue;
    }
    switch (field.type) {
      case "text":
      case "textarea":
        if (typeof value !== "string") {
          issues.push({ path: at, message: "expected text" });
        } else if (value.length > (field.max_length ?? 10_000)) {
          issues.push({
            path: at,
            message: `at most ${field.max_length ?? 10_000} characters`,
          });
        }
        break;
      case "number":
        if (typeof value !== "number" || !Number.isFinite(value)) {
          issues.push({ path: at, message: "expected a number" });
        } else if (field.min !== undefined && value < field.min) {
          issues.push({ path: at, message: `at least ${field.min}` });
        } else if (field.max !== undefined && value > field.max) {
          issues.push({ path: at, message: `at most ${field.max}` });
        }
        break;
      case "boolean":
        if (typeof value !== "boolean") {
          issues.push({ path: at, message: "expected true or false" });
        }
        break;
      case "select":
        if (!field.options!.some((o) => o.value === value)) {
          issues.push({ path: at, message: "expected one of the options" });
        }
        break;
      case "datetime":
        if (
          typeof value !== "string" ||
          !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value) ||
          Number.isNaN(Date.parse(value))
        ) {
          issues.push({ path: at, message: "expected an ISO date and time" });
        }
        break;
      case "timezone":
        if (typeof value !== "string" || !isTimeZone(value)) {
          issues.push({ path: at, message: "expected an IANA time zone" });
        }
        break;
      case "locale":
        if (typeof value !== "string" || !languages.includes(value)) {
          issues.push({ path: at, message: "expected a language of the site" });
        }
        break;
    }
  }
  return issues;
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return zone.includes("/") || zone === "UTC";
  } catch {
    return false;
  }
}
