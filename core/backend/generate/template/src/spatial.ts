// Spatial queries on list routes: `filter[<field>][within_radius]=<lat>,<lon>,<metres>`,
// `filter[<field>][within_bbox]=<south>,<west>,<north>,<east>` (inclusive; west greater than
// east crosses the antimeridian) and nearest order `sort=<field>&origin=<lat>,<lon>`
// (`sort=-<field>` reverses; rows without a point last, then by id). Distances are
// great-circle metres in plain SQL over the `{ lat, lon }` of a point column.
import { type RawBuilder, sql } from "kysely";
import { refuse } from "./errors.ts";
import type { ColumnSpec } from "./schema.ts";

/** The mean Earth radius in metres, doubled for the haversine formula. */
const EARTH_DIAMETER = 2 * 6_371_008.8;

/** What a spatial request adds to a list query. */
export interface SpatialQuery {
  filters: RawBuilder<boolean>[];
  /** Nearest order; null when the request sorts otherwise. */
  order: { distance: RawBuilder<number>; column: string; desc: boolean } | null;
}

const FILTER = /^filter\[([a-z][a-z0-9_]*)\]\[(within_radius|within_bbox)\]$/;

/** True for the query parameter names this module reads. */
export function isSpatialParam(name: string): boolean {
  return FILTER.test(name) || name === "sort" || name === "origin";
}

function numbers(text: string, count: number): number[] {
  const parts = text.split(",");
  const values = parts.map((p) => p.trim() === "" ? NaN : Number(p));
  if (parts.length !== count || values.some((v) => !Number.isFinite(v))) {
    refuse(400, "spatial_query_invalid", {
      message: `Expected ${count} comma-separated numbers`,
    });
  }
  return values;
}

function checkLatLon(lat: number, lon: number): void {
  if (Math.abs(lat) > 90 || Math.abs(lon) > 180) {
    refuse(400, "spatial_query_invalid", {
      message: "Latitude must be within ±90 and longitude within ±180",
    });
  }
}

const lat = (column: string) =>
  sql<number>`(${sql.ref(column)}->>'lat')::float8`;
const lon = (column: string) =>
  sql<number>`(${sql.ref(column)}->>'lon')::float8`;

/** Great-circle metres from a point column to `(fromLat, fromLon)`. */
function distance(column: string, fromLat: number, fromLon: number) {
  return sql<number>`${EARTH_DIAMETER} * asin(sqrt(
    power(sin(radians((${lat(column)} - ${fromLat}) / 2)), 2) +
    cos(radians(${fromLat})) * cos(radians(${lat(column)})) *
    power(sin(radians((${lon(column)} - ${fromLon}) / 2)), 2)))`;
}

/**
 * Reads the spatial parameters of a list request. `columns` are the point columns the caller
 * may use (a reader never a private one: `403 spatial_field_denied`).
 */
export function parseSpatial(
  params: URLSearchParams,
  columns: readonly ColumnSpec[],
  editor: boolean,
  ordered: boolean,
): SpatialQuery {
  const pointColumn = (name: string) => {
    const column = columns.find((c) => c.name === name);
    if (!column || column.kind !== "point") {
      refuse(400, "spatial_query_invalid", {
        message: `"${name}" is not a point field`,
      });
    }
    if (column.private && !editor) {
      refuse(403, "spatial_field_denied", { field: name });
    }
    return column.name;
  };
  const filters: RawBuilder<boolean>[] = [];
  for (const [name, value] of params) {
    const match = FILTER.exec(name);
    if (!match) continue;
    const column = pointColumn(match[1]);
    if (match[2] === "within_radius") {
      const [la, lo, metres] = numbers(value, 3);
      checkLatLon(la, lo);
      if (metres < 0) {
        refuse(400, "spatial_query_invalid", {
          message: "Radius must be positive",
        });
      }
      filters.push(sql<boolean>`${distance(column, la, lo)} <= ${metres}`);
    } else {
      const [south, west, north, east] = numbers(value, 4);
      checkLatLon(south, west);
      checkLatLon(north, east);
      if (south > north) {
        refuse(400, "spatial_query_invalid", {
          message: "South must not be north of north",
        });
      }
      const inLat = sql<boolean>`${lat(column)} between ${south} and ${north}`;
      const inLon = west <= east
        ? sql<boolean>`${lon(column)} between ${west} and ${east}`
        : sql<boolean>`(${lon(column)} >= ${west} or ${
          lon(column)
        } <= ${east})`;
      filters.push(sql<boolean>`(${inLat} and ${inLon})`);
    }
  }
  const sort = params.get("sort");
  const origin = params.get("origin");
  if (sort === null) {
    if (origin !== null) {
      refuse(400, "spatial_query_invalid", { message: "origin needs sort" });
    }
    return { filters, order: null };
  }
  if (ordered) {
    refuse(400, "spatial_query_invalid", {
      message: "sort cannot be combined with orderBy",
    });
  }
  if (origin === null) {
    refuse(400, "spatial_query_invalid", { message: "sort needs origin" });
  }
  const desc = sort.startsWith("-");
  const column = pointColumn(desc ? sort.slice(1) : sort);
  const [la, lo] = numbers(origin, 2);
  checkLatLon(la, lo);
  return {
    filters,
    order: { distance: distance(column, la, lo), column, desc },
  };
}
