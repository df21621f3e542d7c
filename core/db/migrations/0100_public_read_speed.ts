// Public read speed: typed sort/filter keys of published items, and a slug index that matches
// the single read's order exactly.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table public_item_values (
      site_id uuid not null,
      model_id text not null,
      requested_locale text not null,
      group_id uuid not null,
      field_key text not null,
      num_value numeric,
      text_value text collate "C",
      -- Written and deleted with its public_items row by the projection (no foreign key: its
      -- per-row checks made a site rebuild several times slower).
      primary key (site_id, group_id, requested_locale, field_key)
    );
    create index public_item_values_num_asc on public_item_values
      (site_id, model_id, requested_locale, field_key, num_value, group_id)
      where num_value is not null;
    create index public_item_values_num_desc on public_item_values
      (site_id, model_id, requested_locale, field_key, num_value desc, group_id)
      where num_value is not null;
    create index public_item_values_text_asc on public_item_values
      (site_id, model_id, requested_locale, field_key, text_value, group_id)
      where text_value is not null;
    create index public_item_values_text_desc on public_item_values
      (site_id, model_id, requested_locale, field_key, text_value desc, group_id)
      where text_value is not null;

    create index public_items_slug_group on public_items
      (site_id, model_id, requested_locale, slug, group_id);
    drop index public_items_slug;

    insert into public_item_values (site_id, model_id, requested_locale, group_id, field_key,
      num_value, text_value)
    select p.site_id, p.model_id, p.requested_locale, p.group_id, kv.key,
      case when jsonb_typeof(kv.value) = 'number' then (kv.value #>> '{}')::numeric end,
      case when jsonb_typeof(kv.value) = 'string' then kv.value #>> '{}' end
    from public_items p cross join lateral jsonb_each(p.fields) kv
    where jsonb_typeof(kv.value) = 'number'
      or (jsonb_typeof(kv.value) = 'string' and char_length(kv.value #>> '{}') <= 255);
  `.execute(db);
}
