// This module is browser compatible.
// Reads a section's props and list items against their specs, tracking the contract version
// they need; refusals carry the spec's code and the JSON path of the offending value.
import {
  FIELD_NAME_PATTERN,
  FILE_CATALOGUE,
  FILE_LIMITS,
  FORM_FIELD_KINDS,
  HREF_PATTERN,
  type ItemSpec,
  PAGE_CONTRACT,
  PAGE_LIMITS,
  type PageErrorCode,
  type PropSpec,
  RUN_MARKS,
} from "./vocabulary.ts";
import { closed, isObject, matches, pathOf, refuse } from "./refusal.ts";

/** Reads props and list items against their specs, tracking the contract they need. */
export class PropReader {
  contract: number = PAGE_CONTRACT.base;
  constructor(readonly section: string) {}

  fail(code: PageErrorCode, at: string, message: string): never {
    refuse(code, at, message, this.section);
  }

  object(
    raw: Record<string, unknown>,
    spec: Record<string, PropSpec>,
    at: string,
  ): Record<string, unknown> {
    for (const key of Object.keys(raw)) {
      if (!Object.hasOwn(spec, key)) {
        this.fail("invalid_slide", pathOf(at, key), `Unknown key "${key}"`);
      }
    }
    const out: Record<string, unknown> = {};
    for (const [key, prop] of Object.entries(spec)) {
      const value = this.prop(raw, key, prop, pathOf(at, key));
      if (value !== undefined) out[key] = value;
    }
    return out;
  }

  prop(
    raw: Record<string, unknown>,
    key: string,
    prop: PropSpec,
    at: string,
  ): unknown {
    const present = Object.hasOwn(raw, key);
    const value = raw[key];
    const later = (prop.kind === "text" || prop.kind === "link") && prop.later;
    if (later || prop.kind === "true_flag") {
      if (!present) return undefined;
      if (value === null || value === "") {
        this.fail(
          "noncanonical_default",
          at,
          `Leave "${key}" out instead of storing it ${
            value === null ? "null" : "empty"
          }`,
        );
      }
      if (later) {
        this.contract = Math.max(this.contract, PAGE_CONTRACT.laterFields);
      }
    }
    switch (prop.kind) {
      case "text": {
        const text = this.text(value, prop, at, key);
        if (later && text === null) {
          this.fail(
            "noncanonical_default",
            at,
            `Leave "${key}" out instead of storing it blank`,
          );
        }
        return text;
      }
      case "paragraphs": {
        const list = this.list(value, prop.min, prop.max, at, key, true);
        return list.map((p, i) => this.paragraph(p, pathOf(at, i)));
      }
      case "link": {
        if (value === undefined || value === null) {
          if (prop.required) {
            this.fail("invalid_slide", at, `"${key}" is required`);
          }
          return null;
        }
        return this.link(value, at, prop.https ?? false);
      }
      case "media": {
        if (value === undefined || value === null) {
          if (prop.required) {
            this.fail("invalid_slide", at, `"${key}" is required`);
          }
          return null;
        }
        return this.media(value, at);
      }
      case "integer": {
        if (
          typeof value !== "number" || !Number.isInteger(value) ||
          value < prop.min || value > prop.max
        ) {
          this.fail(
            "invalid_slide",
            at,
            `"${key}" is a whole number from ${prop.min} to ${prop.max}`,
          );
        }
        return value;
      }
      case "true_flag":
        if (value !== true) {
          this.fail("invalid_slide", at, `"${key}" is true or left out`);
        }
        return true;
      case "texts": {
        const list = this.list(value, prop.min, prop.max, at, key, false);
        return list.map((t, i) =>
          this.text(t, { kind: "text", required: true }, pathOf(at, i), key)
        );
      }
      case "items": {
        const list = this.list(
          value,
          prop.min,
          prop.max,
          at,
          key,
          prop.min > 0,
        );
        return list.map((item, i) => this.item(item, prop.item, pathOf(at, i)));
      }
      case "form_fields": {
        const list = this.list(value, prop.min, prop.max, at, key, true);
        return list.map((f, i) => this.formField(f, pathOf(at, i)));
      }
      case "custom_fields":
        // Checked against the pinned definition by the caller.
        return value ?? null;
    }
  }

  list(
    value: unknown,
    min: number,
    max: number,
    at: string,
    key: string,
    required: boolean,
  ): unknown[] {
    if (value === undefined || value === null) {
      if (required) this.fail("invalid_slide", at, `"${key}" is required`);
      return [];
    }
    if (!Array.isArray(value)) {
      this.fail("invalid_slide", at, `"${key}" is a list`);
    }
    if (value.length < min || value.length > max) {
      this.fail(
        "invalid_slide",
        at,
        `"${key}" holds ${min} to ${max} entries, not ${value.length}`,
      );
    }
    return value;
  }

  text(
    value: unknown,
    prop: Extract<PropSpec, { kind: "text" }>,
    at: string,
    key: string,
  ): string | null {
    if (value !== undefined && value !== null && typeof value !== "string") {
      this.fail("invalid_slide", at, `"${key}" is text`);
    }
    const text = typeof value === "string" ? value.trim() : "";
    if (text === "") {
      if (prop.required) this.fail("invalid_slide", at, `"${key}" is required`);
      return null;
    }
    const max = prop.max ??
      (prop.long ? PAGE_LIMITS.longText : PAGE_LIMITS.shortText);
    if (text.length > max) {
      this.fail("invalid_slide", at, `"${key}" is at most ${max} characters`);
    }
    if (prop.pattern && !matches(prop.pattern, text)) {
      this.fail(
        "invalid_slide",
        at,
        `"${key}" does not have the expected form`,
      );
    }
    return text;
  }

  paragraph(value: unknown, at: string): unknown {
    if (typeof value === "string") {
      return this.text(
        value,
        { kind: "text", required: true, long: true },
        at,
        "paragraph",
      );
    }
    if (
      !Array.isArray(value) || value.length < 1 ||
      value.length > PAGE_LIMITS.runs
    ) {
      this.fail(
        "invalid_slide",
        at,
        `A paragraph is text or 1 to ${PAGE_LIMITS.runs} formatting runs`,
      );
    }
    let total = 0;
    return value.map((run, i) => {
      const runAt = pathOf(at, i);
      if (!isObject(run)) {
        this.fail("invalid_slide", runAt, "A run is { text, marks }");
      }
      closed(run, ["text", "marks"], runAt, this.section);
      // A run keeps its spaces: they separate it from its neighbours.
      if (typeof run.text !== "string" || run.text === "") {
        this.fail("invalid_slide", pathOf(runAt, "text"), "A run has text");
      }
      total += run.text.length;
      if (total > PAGE_LIMITS.longText) {
        this.fail(
          "invalid_slide",
          pathOf(runAt, "text"),
          `A paragraph is at most ${PAGE_LIMITS.longText} characters`,
        );
      }
      const marks = run.marks;
      if (
        !Array.isArray(marks) ||
        marks.some((m, n) =>
          !(RUN_MARKS as readonly unknown[]).includes(m) ||
          marks.indexOf(m) !== n
        )
      ) {
        this.fail(
          "invalid_slide",
          pathOf(runAt, "marks"),
          `Marks are distinct entries of ${RUN_MARKS.join(", ")}`,
        );
      }
      return { text: run.text, marks: [...marks] };
    });
  }

  link(
    value: unknown,
    at: string,
    https: boolean,
  ): { label: string; href: string } {
    if (!isObject(value)) {
      this.fail("invalid_slide", at, "A link is { label, href }");
    }
    closed(value, ["label", "href"], at, this.section);
    const label = this.text(
      value.label,
      { kind: "text", required: true },
      pathOf(at, "label"),
      "label",
    ) as string;
    const href = this.text(
      value.href,
      {
        kind: "text",
        required: true,
        max: PAGE_LIMITS.href,
        pattern: HREF_PATTERN,
      },
      pathOf(at, "href"),
      "href",
    ) as string;
    if (https && !href.startsWith("https://")) {
      this.fail(
        "invalid_slide",
        pathOf(at, "href"),
        "This link's href starts with https://",
      );
    }
    return { label, href };
  }

  media(value: unknown, at: string): Record<string, unknown> {
    if (!isObject(value)) {
      this.fail(
        "invalid_slide",
        at,
        "A media reference is { media_id, url, alt }",
      );
    }
    closed(
      value,
      ["media_id", "url", "alt", "crop", "focal"],
      at,
      this.section,
    );
    if (
      typeof value.media_id !== "string" ||
      !matches("^[A-Za-z0-9_-]{1,64}$", value.media_id)
    ) {
      this.fail(
        "invalid_slide",
        pathOf(at, "media_id"),
        "media_id is a media id",
      );
    }
    const url = this.text(
      value.url,
      {
        kind: "text",
        required: true,
        max: PAGE_LIMITS.href,
        pattern: "^(https?://|/)[^\\s]*$",
      },
      pathOf(at, "url"),
      "url",
    );
    if (!("alt" in value)) {
      this.fail(
        "invalid_slide",
        pathOf(at, "alt"),
        "A media reference has alt (text or null)",
      );
    }
    const alt = this.text(
      value.alt,
      { kind: "text" },
      pathOf(at, "alt"),
      "alt",
    );
    const out: Record<string, unknown> = { media_id: value.media_id, url, alt };
    if ("crop" in value) {
      const c = this.fractions(
        value.crop,
        ["x", "y", "width", "height"],
        pathOf(at, "crop"),
      );
      if (c.width <= 0 || c.height <= 0) {
        this.fail(
          "invalid_slide",
          pathOf(at, "crop"),
          "A crop has width and height above 0",
        );
      }
      if (c.x + c.width > 1 + 1e-9 || c.y + c.height > 1 + 1e-9) {
        this.fail(
          "invalid_slide",
          pathOf(at, "crop"),
          "A crop lies inside the image",
        );
      }
      out.crop = c;
    }
    if ("focal" in value) {
      out.focal = this.fractions(value.focal, ["x", "y"], pathOf(at, "focal"));
    }
    return out;
  }

  fractions(
    value: unknown,
    keys: string[],
    at: string,
  ): Record<string, number> {
    if (!isObject(value)) {
      this.fail(
        "invalid_slide",
        at,
        `Expected { ${keys.join(", ")} }, never null`,
      );
    }
    closed(value, keys, at, this.section);
    const out: Record<string, number> = {};
    for (const key of keys) {
      const v = value[key];
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > 1) {
        this.fail(
          "invalid_slide",
          pathOf(at, key),
          `"${key}" is a fraction from 0 to 1`,
        );
      }
      out[key] = v;
    }
    return out;
  }

  item(value: unknown, spec: ItemSpec, at: string): Record<string, unknown> {
    if (!isObject(value)) {
      this.fail("invalid_slide", at, "A list item is an object");
    }
    if (spec.kind === "object") return this.object(value, spec.props, at);
    const kind = value.kind;
    if (typeof kind !== "string" || !Object.hasOwn(spec.variants, kind)) {
      this.fail(
        "invalid_slide",
        pathOf(at, "kind"),
        `kind is one of ${Object.keys(spec.variants).join(", ")}`,
      );
    }
    const { kind: _, ...rest } = value;
    return { kind, ...this.object(rest, spec.variants[kind], at) };
  }

  formField(value: unknown, at: string): Record<string, unknown> {
    if (!isObject(value)) {
      this.fail("invalid_slide", at, "A form field is an object");
    }
    const base = ["name", "kind", "label", "required", "help", "options"];
    for (const key of base) {
      if (!(key in value)) {
        this.fail(
          "invalid_slide",
          pathOf(at, key),
          `A form field always has "${key}"`,
        );
      }
    }
    const kind = value.kind;
    if (
      typeof kind !== "string" ||
      !(FORM_FIELD_KINDS as readonly string[]).includes(kind)
    ) {
      this.fail(
        "invalid_slide",
        pathOf(at, "kind"),
        `kind is one of ${FORM_FIELD_KINDS.join(", ")}`,
      );
    }
    closed(
      value,
      kind === "file" ? [...base, "accept", "max_files", "max_bytes"] : base,
      at,
      this.section,
    );
    if (
      typeof value.name !== "string" || !matches(FIELD_NAME_PATTERN, value.name)
    ) {
      this.fail(
        "invalid_slide",
        pathOf(at, "name"),
        "A field name is 1 to 32 lowercase letters, digits or _, starting with a letter",
      );
    }
    const label = this.text(
      value.label,
      { kind: "text", required: true },
      pathOf(at, "label"),
      "label",
    );
    if (typeof value.required !== "boolean") {
      this.fail(
        "invalid_slide",
        pathOf(at, "required"),
        "required is true or false",
      );
    }
    const help = this.text(
      value.help,
      { kind: "text", long: true },
      pathOf(at, "help"),
      "help",
    );
    const optionsAt = pathOf(at, "options");
    if (!Array.isArray(value.options)) {
      this.fail("invalid_slide", optionsAt, "options is a list");
    }
    let options: string[] = [];
    if (kind === "select") {
      if (value.options.length < 2 || value.options.length > 20) {
        this.fail(
          "invalid_slide",
          optionsAt,
          "A select field has 2 to 20 options",
        );
      }
      options = value.options.map((o, i) =>
        this.text(
          o,
          { kind: "text", required: true },
          pathOf(optionsAt, i),
          "option",
        ) as string
      );
      const twice = options.findIndex((o, i) => options.indexOf(o) !== i);
      if (twice >= 0) {
        this.fail(
          "invalid_slide",
          pathOf(optionsAt, twice),
          "Options are distinct",
        );
      }
    } else if (value.options.length !== 0) {
      this.fail(
        "invalid_slide",
        optionsAt,
        "Only a select field has options; use []",
      );
    }
    const out: Record<string, unknown> = {
      name: value.name,
      kind,
      label,
      required: value.required,
      help,
      options,
    };
    if (kind === "file") {
      this.contract = Math.max(this.contract, PAGE_CONTRACT.fileFields);
      if ("accept" in value) {
        out.accept = this.accept(value.accept, pathOf(at, "accept"));
      }
      if ("max_files" in value) {
        out.max_files = this.whole(
          value.max_files,
          1,
          FILE_LIMITS.maxFiles,
          pathOf(at, "max_files"),
        );
      }
      if ("max_bytes" in value) {
        out.max_bytes = this.whole(
          value.max_bytes,
          1,
          FILE_LIMITS.maxBytes,
          pathOf(at, "max_bytes"),
        );
      }
    }
    return out;
  }

  accept(value: unknown, at: string): string[] {
    if (!Array.isArray(value) || value.length > FILE_LIMITS.accept) {
      this.fail(
        "invalid_slide",
        at,
        `accept lists up to ${FILE_LIMITS.accept} types`,
      );
    }
    return value.map((v, i) => {
      if (typeof v !== "string" || !isSupportedFileType(v)) {
        this.fail(
          "invalid_slide",
          pathOf(at, i),
          "accept names exact supported MIME types or extensions, never wildcards",
        );
      }
      if (value.indexOf(v) !== i) {
        this.fail(
          "invalid_slide",
          pathOf(at, i),
          "accept names each type once",
        );
      }
      return v;
    });
  }

  whole(value: unknown, min: number, max: number, at: string): number {
    if (
      typeof value !== "number" || !Number.isInteger(value) || value < min ||
      value > max
    ) {
      this.fail(
        "invalid_slide",
        at,
        `Expected a whole number from ${min} to ${max}`,
      );
    }
    return value;
  }
}

/** True for an exact MIME type or extension of the file catalogue. */
export function isSupportedFileType(v: string): boolean {
  return FILE_CATALOGUE.some((f) => f.type === v || f.extensions.includes(v));
}
