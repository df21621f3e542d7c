// Sorted lists on text, slug and date-time fields read an index range, as numbers, dates and
// single choices already did (core/public/list_pages.ts, sortedByValues):
//
// - Every string value now has a row in `public_item_values`. One longer than 255 characters
//   keeps its first 255 as `text_value` (a btree entry is bounded); a page orders the items that
//   share such a prefix by their whole value, read from the item. Under the "C" collation a
//   prefix never orders before another the whole value would follow, so the index order is the
//   sort order up to those ties.
// - A string that reads as an RFC 3339 timestamp also has `time_value`, its instant: a date-time
//   sort is time order whatever offsets the values were written with.
import { type Kysely, sql } from "kysely";
import { facetsAsWritten } from "./0120_public_item_facets.ts";

export async function up(db: Kysely<unknown>): Promise<void> {
  // Only a value shaped like a timestamp enters the block that catches a refused cast: entering
  // it starts a subtransaction. `[.]` rather than an escape: this text passes through a template
  // literal.
  await sql`
    create function public_value_instant(value text) returns timestamptz
    language plpgsql stable as $$
    begin
      if value !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]{1,9})?)?(Z|[+-][0-9]{2}:[0-9]{2})$' then
        return null;
      end if;
      begin
        return value::timestamptz;
      exception when others then
        return null;
      end;
    end $$;

    alter table public_item_values add column time_value timestamptz;
  `.execute(db);
  await fillSortKeys(db);
  await sql`
    create index public_item_values_time_asc on public_item_values
      (site_id, model_id, requested_locale, field_key, time_value, group_id)
      include (facets) where time_value is not null;
    create index public_item_values_time_desc on public_item_values
      (site_id, model_id, requested_locale, field_key, time_value desc, group_id)
      include (facets) where time_value is not null;
  `.execute(db);
}

/**
 * Gives the rows written before this migration what the projection now writes: the instants of
 * timestamps, and a row for each string longer than 255 characters. Exported for its test.
 */
// deno-lint-ignore no-explicit-any
export async function fillSortKeys(db: Kysely<any>): Promise<void> {
  // Only rows that may hold a timestamp are rewritten: a rewritten row leaves a dead one behind
  // and new entries in every index until vacuum.
  await sql`
    update public_item_values set time_value = public_value_instant(text_value)
      where text_value ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T'
        and public_value_instant(text_value) is not null
  `.execute(db);
  await sql`
    insert into public_item_values (site_id, model_id, requested_locale, group_id, field_key,
      text_value, facets)
    select p.site_id, p.model_id, p.requested_locale, p.group_id, kv.key,
      left(kv.value #>> '{}', 255), f.facets
    from public_items p
    cross join lateral (select ${
    facetsAsWritten(sql`p.fields`)
  } as facets offset 0) f
    cross join lateral jsonb_each(p.fields) kv
    where jsonb_typeof(kv.value) = 'string' and char_length(kv.value #>> '{}') > 255
    on conflict do nothing
  `.execute(db);
}
