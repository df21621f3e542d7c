// Parses the query string of the public list route (spec 3 part 4.2) into a checked query, or refuses.
import { PUBLIC_QUERY_PARAMETERS } from "./query_parameters.ts";
import { HttpError } from "../web/errors.ts";

/** Limits of spec 3 part 8. */
export const LIST_LIMITS = {
  limitMax: 100,
  limitDefault: 20,
  filterFields: 4,
  filterValues: 10,
  valueLength: 255,
  pairs: 16,
  fields: 32,
  expand: 3,
} as const;

/** One filter: alternatives for equality, or one lower and/or one upper bound. */
export type FilterSpec =
  | { kind: "eq"; values: string[] }
  | {
    kind: "range";
    lower: { op: "gt" | "gte"; value: string } | null;
    upper: { op: "lt" | "lte"; value: string } | null;
  };

/** A list query checked for shape, not yet against the model. */
export interface ListQuery {
  locale: string | null;
  limit: number;
  cursor: string | null;
  order: "asc" | "desc" | "manual";
  sort: { field: string; desc: boolean } | null;
  origin: { latitude: number; longitude: number } | null;
  filters: Map<string, FilterSpec>;
  fields: string[] | null;
  relations: { field: string; id: string }[];
  tags: { field: string; slug: string }[];
  expand: string[];
}

/** Refuses with `400 public_filter_invalid`. */
export function invalid(message: string): never {
  throw new HttpError(400, "public_filter_invalid", message);
}

function tooMany(what: string, max: number): never {
  throw new HttpError(
    400,
    "public_filter_too_many",
    `Too many ${what}: at most ${max}`,
    { max },
  );
}

const REPEATABLE = new Set(["relation", "tag"]);
const FILTER = /^filter\[([a-z][a-z0-9_]{0,63})\](?:\[(gt|gte|lt|lte)\])?$/;

/** Groups parameters by name, refusing empty values, unknown names and forbidden repeats. */
export function collectParams(
  params: URLSearchParams,
  allowed: readonly string[],
  options: { filters?: boolean } = {},
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  // Most single reads send none, and an iterator is a few microseconds of Deno's URL code.
  if (params.size === 0) return out;
  for (const [name, value] of params) {
    const isFilter = options.filters === true && name.startsWith("filter[");
    if (!allowed.includes(name) && !isFilter) {
      invalid(`Unknown parameter "${name.slice(0, 80)}"`);
    }
    if (value === "") invalid(`Parameter "${name.slice(0, 80)}" is empty`);
    const list = out.get(name) ?? [];
    const repeatable = REPEATABLE.has(name) ||
      (isFilter && FILTER.exec(name)?.[2] === undefined);
    if (list.length > 0 && !repeatable) {
      invalid(`Parameter "${name.slice(0, 80)}" is repeated`);
    }
    list.push(value);
    out.set(name, list);
  }
  return out;
}

/** Parses `limit`: an integer in [1, max], never clamped. */
export function parseLimit(
  value: string | undefined,
  max: number,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (!/^[1-9][0-9]{0,2}$/.test(value) || Number(value) > max) {
    invalid(
      `Invalid limit "${
        value.slice(0, 20)
      }": expected an integer from 1 to ${max}`,
    );
  }
  return Number(value);
}

/** Parses a comma list: no empty items, no repeats, at most `max` (refused as `tooMany`). */
export function commaList(
  name: string,
  value: string,
  max: number,
  onTooMany: (max: number) => never,
  onRepeat: (key: string) => never,
): string[] {
  const items = value.split(",");
  if (items.some((i) => i === "")) {
    invalid(`Parameter "${name}" has an empty item`);
  }
  if (items.length > max) onTooMany(max);
  const seen = new Set<string>();
  for (const item of items) {
    if (seen.has(item)) onRepeat(item);
    seen.add(item);
  }
  return items;
}

/** Parses `expand` (shared by list and single read). */
export function parseExpand(value: string | undefined): string[] {
  if (value === undefined) return [];
  const items = commaList(
    "expand",
    value,
    LIST_LIMITS.expand,
    (max) => {
      throw new HttpError(
        400,
        "public_expand_too_many",
        `Too many expanded fields: at most ${max}`,
        { max },
      );
    },
    (key) => {
      throw new HttpError(
        400,
        "public_expand_invalid",
        `Field "${key.slice(0, 64)}" is expanded twice`,
      );
    },
  );
  for (const item of items) {
    if (item.includes(".")) {
      throw new HttpError(
        400,
        "public_expand_too_deep",
        `Cannot expand "${
          item.slice(0, 130)
        }": only one level of relations expands`,
      );
    }
  }
  return items;
}

/** Parses every list parameter; refusals follow spec 3 part 7. */
export function parseListQuery(params: URLSearchParams): ListQuery {
  const p = collectParams(params, PUBLIC_QUERY_PARAMETERS.list, {
    filters: true,
  });
  const one = (name: string) => p.get(name)?.[0];
  const order = one("order");
  if (order !== undefined && !["asc", "desc", "manual"].includes(order)) {
    invalid(
      `Invalid order "${order.slice(0, 20)}": expected asc, desc or manual`,
    );
  }
  const sortText = one("sort");
  if (order !== undefined && sortText !== undefined) {
    invalid("Use either order or sort, not both");
  }
  let sort: ListQuery["sort"] = null;
  if (sortText !== undefined) {
    const m = /^(-?)([a-z][a-z0-9_]{0,63})$/.exec(sortText);
    if (!m) {
      invalid(
        `Invalid sort "${sortText.slice(0, 70)}": expected <field> or -<field>`,
      );
    }
    sort = { field: m[2], desc: m[1] === "-" };
  }
  let origin: ListQuery["origin"] = null;
  const originText = one("origin");
  if (originText !== undefined) {
    const m = /^(-?\d{1,3}(?:\.\d{1,12})?),(-?\d{1,3}(?:\.\d{1,12})?)$/.exec(
      originText,
    );
    const latitude = m ? Number(m[1]) : NaN;
    const longitude = m ? Number(m[2]) : NaN;
    if (!m || Math.abs(latitude) > 90 || Math.abs(longitude) > 180) {
      invalid(
        `Invalid origin "${
          originText.slice(0, 60)
        }": expected <latitude>,<longitude>`,
      );
    }
    if (sort === null) invalid("origin needs a sort on a point field");
    origin = { latitude, longitude };
  }

  const filters = new Map<string, FilterSpec>();
  const bounds = new Map<string, Map<string, string>>();
  for (const [name, values] of p) {
    const m = FILTER.exec(name);
    if (!name.startsWith("filter[")) continue;
    if (!m) invalid(`Invalid filter parameter "${name.slice(0, 80)}"`);
    for (const v of values) {
      if (v.length > LIST_LIMITS.valueLength) {
        invalid(
          `Filter value of "${
            m[1]
          }" is longer than ${LIST_LIMITS.valueLength} characters`,
        );
      }
    }
    if (m[2] === undefined) {
      if (values.length > LIST_LIMITS.filterValues) {
        throw new HttpError(
          400,
          "public_filter_too_many_values",
          `Too many values for filter "${
            m[1]
          }": at most ${LIST_LIMITS.filterValues}`,
          { max: LIST_LIMITS.filterValues },
        );
      }
      filters.set(m[1], { kind: "eq", values });
    } else {
      const b = bounds.get(m[1]) ?? new Map<string, string>();
      b.set(m[2], values[0]);
      bounds.set(m[1], b);
    }
  }
  const fieldCount = new Set([...filters.keys(), ...bounds.keys()]).size;
  if (fieldCount > LIST_LIMITS.filterFields) {
    tooMany("filter fields", LIST_LIMITS.filterFields);
  }
  for (const [field, b] of bounds) {
    if (filters.has(field)) {
      invalid(`Filter "${field}" cannot combine equality and a range`);
    }
    if (b.has("gt") && b.has("gte")) {
      invalid(`Filter "${field}" has two lower bounds`);
    }
    if (b.has("lt") && b.has("lte")) {
      invalid(`Filter "${field}" has two upper bounds`);
    }
    const lowerOp = b.has("gt") ? "gt" : b.has("gte") ? "gte" : null;
    const upperOp = b.has("lt") ? "lt" : b.has("lte") ? "lte" : null;
    filters.set(field, {
      kind: "range",
      lower: lowerOp ? { op: lowerOp, value: b.get(lowerOp)! } : null,
      upper: upperOp ? { op: upperOp, value: b.get(upperOp)! } : null,
    });
  }

  const relations = (p.get("relation") ?? []).map((v) => {
    const m = /^([a-z][a-z0-9_]{0,63}):(.+)$/.exec(v);
    if (!m) {
      invalid(
        `Invalid relation "${v.slice(0, 100)}": expected <field>:<item id>`,
      );
    }
    return { field: m[1], id: m[2] };
  });
  const tags = (p.get("tag") ?? []).map((v) => {
    const m = /^([a-z][a-z0-9_]{0,63}):(.+)$/.exec(v);
    if (!m) {
      invalid(`Invalid tag "${v.slice(0, 100)}": expected <field>:<slug>`);
    }
    if (m[2].length > LIST_LIMITS.valueLength) invalid("Tag slug is too long");
    return { field: m[1], slug: m[2] };
  });
  if (relations.length + tags.length > LIST_LIMITS.pairs) {
    tooMany("relation and tag pairs", LIST_LIMITS.pairs);
  }
  const fieldsText = one("fields");
  const fields = fieldsText === undefined ? null : commaList(
    "fields",
    fieldsText,
    LIST_LIMITS.fields,
    (max) => tooMany("fields", max),
    (key) => invalid(`Field "${key.slice(0, 64)}" is selected twice`),
  );
  return {
    locale: one("locale") ?? null,
    limit: parseLimit(
      one("limit"),
      LIST_LIMITS.limitMax,
      LIST_LIMITS.limitDefault,
    ),
    cursor: one("cursor") ?? null,
    order: (order ?? "desc") as ListQuery["order"],
    sort,
    origin,
    filters,
    fields,
    relations,
    tags,
    expand: parseExpand(one("expand")),
  };
}
