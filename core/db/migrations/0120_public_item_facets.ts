// Public read speed: the short field values of each item ride in the sort indexes of
// `public_item_values` (`facets`), so a filtered + sorted list filters on index entries and
// reads `public_items` only for the rows it returns (core/public/list.ts).
import { type Kysely, type RawBuilder, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  // The indexes are rebuilt after the fill rather than updated row by row.
  await sql`
    drop index public_item_values_num_asc;
    drop index public_item_values_num_desc;
    drop index public_item_values_text_asc;
    drop index public_item_values_text_desc;
    alter table public_item_values add column facets jsonb;
  `.execute(db);
  await fillFacets(db);
  await sql`
    create index public_item_values_num_asc on public_item_values
      (site_id, model_id, requested_locale, field_key, num_value, group_id)
      include (facets) where num_value is not null;
    create index public_item_values_num_desc on public_item_values
      (site_id, model_id, requested_locale, field_key, num_value desc, group_id)
      include (facets) where num_value is not null;
    create index public_item_values_text_asc on public_item_values
      (site_id, model_id, requested_locale, field_key, text_value, group_id)
      include (facets) where text_value is not null;
    create index public_item_values_text_desc on public_item_values
      (site_id, model_id, requested_locale, field_key, text_value desc, group_id)
      include (facets) where text_value is not null;
  `.execute(db);
}

/**
 * The facets of a `fields` jsonb expression: a copy of `facetsOf` in core/public/projection.ts
 * (255 and 1024 bytes of text, 1400 stored bytes, omitted values as {"~": true}) as it was when
 * this migration was written, since a migration must not change with the app code it would
 * import. Later migrations that add rows use it too.
 */
export function facetsAsWritten(
  fields: RawBuilder<unknown>,
): RawBuilder<unknown> {
  return sql`(select case when octet_length(o::text) <= 1024
      and pg_column_size(o) <= 1400 then o end
    from (select coalesce(jsonb_object_agg(e.key,
        case when octet_length(e.value::text) <= 255 then e.value
          else '{"~": true}'::jsonb end), '{}'::jsonb) as o
      from jsonb_each(${fields}) e) x)`;
}

/**
 * Sets `facets` on every row from its `public_items` row. Exported for its test, which checks
 * that it writes what the projection writes.
 */
// deno-lint-ignore no-explicit-any
export async function fillFacets(db: Kysely<any>): Promise<void> {
  // `offset 0` computes the facets once per item, not once per row.
  await sql`
    update public_item_values s set facets = f.facets
    from (
      select p.site_id, p.model_id, p.requested_locale, p.group_id,
        ${facetsAsWritten(sql`p.fields`)} as facets
      from public_items p
      offset 0
    ) f
    where s.site_id = f.site_id and s.model_id = f.model_id
      and s.requested_locale = f.requested_locale and s.group_id = f.group_id
  `.execute(db);
}
