// This module is browser compatible.
// Checks one non-component field value against its type and rules; relations and media by shape only.
import { isDate, isDateTime, UUID } from "./field_types.ts";
import { charLength } from "./problems.ts";
import { checkRichText } from "./rich_text.ts";
import {
  checkItems,
  checkRelation,
  type Scalar,
  type ValueSink,
} from "./value_lists.ts";

export type { ValueReference, ValueSink } from "./value_lists.ts";

/** Slug values: lower-case letters (any script), digits and single hyphens between them. */
export const SLUG_VALUE =
  /^[\p{Ll}\p{Lo}\p{Lm}\p{Nd}]+(?:-[\p{Ll}\p{Lo}\p{Lm}\p{Nd}]+)*$/u;

/**
 * Checks a value that is neither undefined nor null. Answers false when the value is empty
 * (blank text, an empty list, rich text with nothing to read), which the caller treats as missing.
 */
export function checkValue(
  field: Scalar,
  value: unknown,
  sink: ValueSink,
): boolean {
  const expect = (
    what: string,
  ) => (sink.problem("invalid_type", `Field "${sink.path}" expects ${what}`),
    true);
  switch (field.type) {
    case "text":
    case "slug": {
      if (typeof value !== "string") return expect("text");
      if (value.trim() === "") return false;
      const rules = field.validation;
      const length = charLength(value);
      if (field.type === "slug" && !SLUG_VALUE.test(value)) {
        sink.problem(
          "invalid_slug",
          `Field "${sink.path}" expects lower-case letters, digits and single hyphens`,
        );
      }
      if (rules.minLength !== undefined && length < rules.minLength) {
        sink.problem(
          "too_short",
          `Field "${sink.path}" holds ${length} characters: at least ${rules.minLength} are needed`,
        );
      }
      if (rules.maxLength !== undefined && length > rules.maxLength) {
        sink.problem(
          "too_long",
          `Field "${sink.path}" holds ${length} characters: at most ${rules.maxLength} are allowed`,
        );
      }
      if (
        field.type === "text" && field.validation.pattern !== undefined &&
        !new RegExp(field.validation.pattern, "u").test(value)
      ) {
        sink.problem(
          "pattern_mismatch",
          `Field "${sink.path}" does not match the pattern "${field.validation.pattern}"`,
        );
      }
      return true;
    }
    case "number": {
      if (typeof value !== "number" || !Number.isFinite(value)) {
        return expect("a number");
      }
      const { min, max, step } = field.validation;
      if (field.config.integer && !Number.isInteger(value)) {
        sink.problem(
          "not_integer",
          `Field "${sink.path}" expects a whole number`,
        );
      }
      if (min !== undefined && value < min) {
        sink.problem(
          "too_small",
          `Field "${sink.path}" is ${value}: at least ${min} is needed`,
        );
      }
      if (max !== undefined && value > max) {
        sink.problem(
          "too_large",
          `Field "${sink.path}" is ${value}: at most ${max} is allowed`,
        );
      }
      if (step !== undefined) {
        const steps = (value - (min ?? 0)) / step;
        if (Math.abs(steps - Math.round(steps)) > 1e-9) {
          sink.problem(
            "step_mismatch",
            `Field "${sink.path}" is ${value}: expected a multiple of ${step} from ${
              min ?? 0
            }`,
          );
        }
      }
      return true;
    }
    case "boolean":
      return typeof value === "boolean" || expect("true or false");
    case "date":
    case "datetime": {
      const valid = field.type === "date" ? isDate(value) : isDateTime(value);
      if (!valid) {
        return expect(
          field.type === "date"
            ? "a date YYYY-MM-DD"
            : "a timestamp such as 2026-01-31T09:30:00Z",
        );
      }
      const text = value as string;
      const at = (v: string) => field.type === "date" ? v : Date.parse(v);
      const { min, max } = field.validation;
      if (min !== undefined && at(text) < at(min)) {
        sink.problem(
          "date_too_early",
          `Field "${sink.path}" is ${value}: ${min} is the earliest allowed`,
        );
      }
      if (max !== undefined && at(text) > at(max)) {
        sink.problem(
          "date_too_late",
          `Field "${sink.path}" is ${value}: ${max} is the latest allowed`,
        );
      }
      return true;
    }
    case "select": {
      const options = new Set(field.config.options.map((o) => o.value));
      const list = field.config.multiple ? value : [value];
      if (!Array.isArray(list) || list.some((v) => typeof v !== "string")) {
        return expect(
          field.config.multiple ? "a list of option values" : "an option value",
        );
      }
      if (list.length === 0 || (!field.config.multiple && list[0] === "")) {
        return false;
      }
      const bad = list.find((v) => !options.has(v));
      if (bad !== undefined) {
        sink.problem(
          "invalid_option",
          `Field "${sink.path}": "${bad}" is not one of its options`,
        );
      }
      if (field.config.multiple) checkItems(list, field.validation, sink);
      return true;
    }
    case "json":
      return true;
    case "rich_text": {
      if (typeof value !== "string") return expect("rich text (HTML)");
      const report = checkRichText(value, { embedOrigins: sink.embedOrigins });
      if (report.problem) {
        const { code, message, element, attribute } = report.problem;
        sink.problem(code, `Rich text "${sink.path}": ${message}`, {
          element,
          attribute,
        });
        return true;
      }
      report.blocks.forEach((block) =>
        sink.reference({ kind: "rich_block", path: sink.path, block })
      );
      for (const kind of new Set(report.media.map((m) => m.kind))) {
        sink.reference({
          kind: "media",
          path: sink.path,
          ids: report.media.filter((m) => m.kind === kind).map((m) => m.id),
          kinds: [kind],
        });
      }
      return report.hasContent;
    }
    case "relation":
      return checkRelation(field, value, sink);
    case "media": {
      const list = field.config.multiple ? value : [value];
      if (
        !Array.isArray(list) ||
        list.some((v) => typeof v !== "string" || !UUID.test(v))
      ) {
        return expect(
          field.config.multiple ? "a list of media ids" : "a media id",
        );
      }
      if (list.length === 0) return false;
      if (field.config.multiple) checkItems(list, field.validation, sink);
      sink.reference({
        kind: "media",
        path: sink.path,
        ids: list.map((id) => id.toLowerCase()),
        kinds: field.config.kinds ?? null,
      });
      return true;
    }
    case "point": {
      const point = value as Record<string, unknown>;
      const keys = typeof value === "object" && !Array.isArray(value)
        ? Object.keys(point).sort().join()
        : "";
      if (
        keys !== "latitude,longitude" || typeof point.latitude !== "number" ||
        typeof point.longitude !== "number"
      ) {
        return expect("a point { latitude, longitude }");
      }
      const { latitude, longitude } = point as {
        latitude: number;
        longitude: number;
      };
      if (!(latitude >= -90 && latitude <= 90)) {
        sink.problem(
          "invalid_point",
          `Field "${sink.path}": latitude ${latitude} is outside -90 to 90`,
        );
      }
      if (!(longitude >= -180 && longitude <= 180)) {
        sink.problem(
          "invalid_point",
          `Field "${sink.path}": longitude ${longitude} is outside -180 to 180`,
        );
      }
      return true;
    }
  }
}
