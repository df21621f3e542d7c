// The plugin media sources page's markup: the source picker and search (a GET form), the items
// with their previews (sent without a referrer, PEXT-025), and an import form per item.
import type { ShellData } from "../../../core/admin/shell.ts";
import type {
  ListedItem,
  ListedSource,
} from "../../../core/plugins/media_sources.ts";
import type { PageProps } from "../../../core/web/manifest.ts";
import { AdminShell } from "../_shell.tsx";

/** What the page shows. */
export interface SourcesData {
  shell: ShellData;
  sources: ListedSource[];
  /** The browsed source (`installation_id/source_id`), or null when there is none. */
  selected: string | null;
  q: string;
  items: ListedItem[];
  nextCursor: string | null;
  error?: string;
  /** A duplicate import names the library file that is already there. */
  existing?: { id: string; fileName: string };
}

/** The value a source has in the picker and the forms. */
export function sourceKey(s: { installation_id: string; source_id: string }) {
  return `${s.installation_id}/${s.source_id}`;
}

function browseHref(data: SourcesData, cursor: string) {
  const params = new URLSearchParams();
  if (data.selected) params.set("source", data.selected);
  if (data.q) params.set("q", data.q);
  params.set("cursor", cursor);
  return `/admin/media/sources?${params}`;
}

function Item(
  props: { data: SourcesData; item: ListedItem; source: ListedSource },
) {
  const { item, source, data } = props;
  const modes = item.modes.filter((m) => source.modes.includes(m));
  const titleId = `item-${encodeURIComponent(item.id)}`;
  return (
    <li class="source-item">
      <img
        src={item.thumbnail_url}
        referrerpolicy="no-referrer"
        loading="lazy"
        alt={item.attribution.alt || item.title || item.file_name}
        width={item.width ?? undefined}
        height={item.height ?? undefined}
      />
      <span class="media-name" id={titleId}>{item.title}</span>
      <span class="muted media-name">{item.file_name}</span>
      {modes.length > 0 && (
        <form method="post" class="buttons">
          <input type="hidden" name="_csrf" value={data.shell.csrfToken} />
          <input type="hidden" name="source" value={sourceKey(source)} />
          <input type="hidden" name="item_id" value={item.id} />
          {modes.map((mode) => (
            <button
              key={mode}
              type="submit"
              name="mode"
              value={mode}
              class={mode === "copy" ? undefined : "secondary"}
              aria-describedby={titleId}
            >
              {mode === "copy" ? "Import a copy" : "Import as a link"}
            </button>
          ))}
        </form>
      )}
    </li>
  );
}

/** The whole page. */
export function SourcesPage({ data }: PageProps<SourcesData>) {
  const source = data.sources.find((s) => sourceKey(s) === data.selected);
  return (
    <AdminShell
      shell={data.shell}
      title="Plugin media sources"
      actions={
        <a class="button secondary" href="/admin/media">Media library</a>
      }
    >
      {data.error && (
        <p role="alert" class="alert">
          {data.error}
          {data.existing && (
            <>
              {" "}
              <a href={`/admin/media?item=${data.existing.id}`}>
                Open “{data.existing.fileName}” in the library
              </a>
            </>
          )}
        </p>
      )}
      {data.sources.length === 0
        ? (
          <p class="muted">
            No installed plugin offers media here. Plugins granted “media
            source” list their sources on this page.
          </p>
        )
        : (
          <form method="get" class="media-search" role="search">
            <label for="source-pick">Source</label>
            <select id="source-pick" name="source">
              {data.sources.map((s) => (
                <option
                  key={sourceKey(s)}
                  value={sourceKey(s)}
                  selected={sourceKey(s) === data.selected}
                >
                  {s.label} ({s.plugin_name})
                </option>
              ))}
            </select>
            <label for="source-q">Search</label>
            <input
              id="source-q"
              type="search"
              name="q"
              value={data.q}
              maxLength={200}
            />
            <button type="submit" class="secondary">Browse</button>
          </form>
        )}
      {source && (
        <section aria-labelledby="items-heading">
          <h2 id="items-heading">{source.label}</h2>
          {source.description && <p class="muted">{source.description}</p>}
          {data.items.length === 0
            ? (
              <p class="muted">
                {data.q
                  ? `Nothing in this source matches “${data.q}”.`
                  : "This source offers nothing yet."}
              </p>
            )
            : (
              <ul class="media-grid source-grid">
                {data.items.map((item) => (
                  <Item key={item.id} data={data} item={item} source={source} />
                ))}
              </ul>
            )}
          {data.nextCursor && (
            <p>
              <a href={browseHref(data, data.nextCursor)}>More items</a>
            </p>
          )}
        </section>
      )}
    </AdminShell>
  );
}
