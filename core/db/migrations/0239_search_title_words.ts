// Each search document's title words, one row per word, in publication order per word: a search
// reads the newest documents whose title holds every word by merging these lists, and stops at a
// page (core/search/search.ts). The GIN index on `words` finds every match but in no order, so
// when the newest documents held too few title matches every match was read and ranked
// (docs/benchmarks.md, issue 18 round seven). A trigger keeps the rows with their document, so
// no write path can forget them.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table search_title_words (
      site_id uuid not null,
      locale text not null,
      word text not null,
      published_at timestamptz not null,
      entry_id uuid not null,
      -- Read backwards: newest first per word, as the answers are ordered.
      primary key (site_id, locale, word, published_at, entry_id)
    );

    -- Statement triggers with transition tables: a site's bulk (re)index writes its documents in
    -- one statement, and its title words follow in one more.
    create function search_title_words_follow() returns trigger
    language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then
        delete from search_title_words t using removed o
        where t.site_id = o.site_id and t.locale = o.locale
          and t.word = any (string_to_array(btrim(o.title_words), ' '))
          and t.published_at = o.published_at and t.entry_id = o.entry_id;
      end if;
      if tg_op in ('INSERT', 'UPDATE') then
        insert into search_title_words (site_id, locale, word, published_at, entry_id)
        select distinct n.site_id, n.locale, w, n.published_at, n.entry_id
        from added n, unnest(string_to_array(btrim(n.title_words), ' ')) as w
        where w <> ''
        on conflict do nothing;
      end if;
      return null;
    end $$;

    create trigger search_title_words_added after insert on search_documents
      referencing new table as added
      for each statement execute function search_title_words_follow();
    create trigger search_title_words_removed after delete on search_documents
      referencing old table as removed
      for each statement execute function search_title_words_follow();
    create trigger search_title_words_changed after update on search_documents
      referencing old table as removed new table as added
      for each statement execute function search_title_words_follow();

    insert into search_title_words (site_id, locale, word, published_at, entry_id)
    select distinct d.site_id, d.locale, w, d.published_at, d.entry_id
    from search_documents d, unnest(string_to_array(btrim(d.title_words), ' ')) as w
    where w <> ''
    on conflict do nothing;
  `.execute(db);
}
