// The media library page's markup: folders, search, upload, the grid, and the selected file's panel.
import type { ShellData } from "../../../core/admin/shell.ts";
import type { FolderView } from "../../../core/media/folders.ts";
import type { MediaItem } from "../../../core/media/items.ts";
import type { MediaUsage } from "../../../core/media/usage.ts";
import { variantSrcset, variantUrl } from "../../../core/media/variant_url.ts";
import type { PageProps } from "../../../core/web/manifest.ts";
import FocalPointPicker from "../../../islands/FocalPointPicker.tsx";
import MediaUploader from "../../../islands/MediaUploader.tsx";
import { AdminShell } from "../_shell.tsx";

/** What the page shows. */
export interface LibraryData {
  shell: ShellData;
  title: string;
  csrfToken: string;
  languages: string[];
  folders: FolderView[];
  unfiled: number;
  /** A folder id, `unfiled`, or null for every file. */
  folder: string | null;
  q: string;
  items: MediaItem[];
  nextCursor: string | null;
  selected: { item: MediaItem; usage: MediaUsage } | null;
  may: { upload: boolean; update: boolean; delete: boolean };
  error?: string;
  /** An upload without script found the same bytes: the page asks in words. */
  duplicate?: { fileName: string; existing: MediaItem; copies: number };
}

function size(bytes: number): string {
  if (bytes < 1000) return `${bytes} bytes`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

function href(data: LibraryData, change: Record<string, string | null>) {
  const params = new URLSearchParams();
  const base: Record<string, string | null> = {
    folder: data.folder,
    q: data.q || null,
    ...change,
  };
  for (const [k, v] of Object.entries(base)) if (v) params.set(k, v);
  const query = params.toString();
  return `/admin/media${query ? `?${query}` : ""}`;
}

function Hidden(props: { csrf: string; action: string; id?: string }) {
  return (
    <>
      <input type="hidden" name="_csrf" value={props.csrf} />
      <input type="hidden" name="action" value={props.action} />
      {props.id && <input type="hidden" name="id" value={props.id} />}
    </>
  );
}

function Folders({ data }: { data: LibraryData }) {
  return (
    <nav class="card media-folders" aria-label="Folders">
      <h2>Folders</h2>
      <ul class="plain">
        <li>
          <a
            href={href(data, { folder: null, item: null })}
            aria-current={data.folder === null ? "page" : undefined}
          >
            All files
          </a>
        </li>
        <li>
          <a
            href={href(data, { folder: "unfiled", item: null })}
            aria-current={data.folder === "unfiled" ? "page" : undefined}
          >
            Unfiled <span class="muted">({data.unfiled})</span>
          </a>
        </li>
        {data.folders.map((f) => (
          <li key={f.id} style={{ paddingLeft: `${(f.depth - 1) * 0.75}rem` }}>
            <a
              href={href(data, { folder: f.id, item: null })}
              aria-current={data.folder === f.id ? "page" : undefined}
            >
              {f.name} <span class="muted">({f.subtree_media_count})</span>
            </a>
          </li>
        ))}
      </ul>
      {data.may.update && (
        <form method="post" class="stack">
          <Hidden csrf={data.csrfToken} action="folder" />
          {data.folder && data.folder !== "unfiled" && (
            <input type="hidden" name="parent_id" value={data.folder} />
          )}
          <label for="folder-name">
            {data.folder && data.folder !== "unfiled"
              ? "New folder inside this one"
              : "New folder"}
          </label>
          <input id="folder-name" name="name" required maxLength={80} />
          <button type="submit" class="secondary">Create folder</button>
        </form>
      )}
    </nav>
  );
}

function Grid({ data }: { data: LibraryData }) {
  if (data.items.length === 0) {
    return (
      <p class="muted">
        {data.q ? `No file matches “${data.q}”.` : "No files here yet."}
      </p>
    );
  }
  return (
    <ul class="media-grid">
      {data.items.map((item) => (
        <li key={item.id}>
          <a
            href={href(data, { item: item.id })}
            aria-current={data.selected?.item.id === item.id
              ? "true"
              : undefined}
          >
            {item.kind === "image"
              ? (
                <img
                  src={variantUrl(item.url ?? "", 320)}
                  srcset={variantSrcset(item.url ?? "", 320)}
                  alt=""
                  loading="lazy"
                  width={item.width ?? undefined}
                  height={item.height ?? undefined}
                />
              )
              : <span class="media-kind">{item.format}</span>}
            <span class="media-name">{item.file_name}</span>
          </a>
        </li>
      ))}
    </ul>
  );
}

function Details({ data }: { data: LibraryData }) {
  const { item, usage } = data.selected!;
  const folderName = data.folders.find((f) => f.id === item.folder_id)?.name ??
    "Unfiled";
  return (
    <section class="card media-details" aria-labelledby="details-heading">
      <h2 id="details-heading">{item.file_name}</h2>
      <dl>
        <dt>Kind</dt>
        <dd>{item.kind} ({item.mime_type})</dd>
        <dt>Size</dt>
        <dd>{size(item.byte_length)}</dd>
        {item.width !== null && (
          <>
            <dt>Dimensions</dt>
            <dd>{item.width} × {item.height} px</dd>
          </>
        )}
        <dt>Folder</dt>
        <dd>{folderName}</dd>
        <dt>Address</dt>
        <dd>
          <a href={item.url ?? "#"} class="media-url">Open the file</a>
        </dd>
      </dl>
      {data.may.update && (
        <>
          <form method="post" class="stack">
            <Hidden csrf={data.csrfToken} action="alt" id={item.id} />
            <h3>Alt text</h3>
            <p class="muted">
              Describe the image for people who cannot see it. Empty clears a
              language.
            </p>
            {data.languages.map((lang) => (
              <p key={lang}>
                <label for={`alt-${lang}`}>Alt text ({lang})</label>
                <input
                  id={`alt-${lang}`}
                  name={`alt_${lang}`}
                  lang={lang}
                  maxLength={1000}
                  value={item.alt_texts[lang] ?? ""}
                />
              </p>
            ))}
            <button type="submit">Save alt texts</button>
          </form>
          <form method="post" class="stack">
            <Hidden csrf={data.csrfToken} action="framing" id={item.id} />
            <input type="hidden" name="kind" value={item.kind} />
            <h3>Display</h3>
            {item.kind === "image" && (
              <FocalPointPicker
                src={variantUrl(item.url ?? "", 1280)}
                alt={item.alt_texts[data.languages[0]] ?? ""}
                x={item.default_focal?.x ?? null}
                y={item.default_focal?.y ?? null}
              />
            )}
            <p>
              <label for="loading">Loading</label>
              <select id="loading" name="loading">
                <option value="lazy" selected={item.loading === "lazy"}>
                  Lazy (when scrolled near)
                </option>
                <option value="eager" selected={item.loading === "eager"}>
                  Eager (at once)
                </option>
              </select>
            </p>
            <p>
              <label for="priority">Fetch priority</label>
              <select id="priority" name="fetch_priority">
                {(["auto", "high", "low"] as const).map((p) => (
                  <option
                    key={p}
                    value={p}
                    selected={item.fetch_priority === p}
                  >
                    {p}
                  </option>
                ))}
              </select>
            </p>
            <button type="submit">Save display settings</button>
          </form>
          <form method="post" class="stack">
            <Hidden csrf={data.csrfToken} action="move" id={item.id} />
            <label for="move-folder">Move to folder</label>
            <select id="move-folder" name="folder_id">
              <option value="">Unfiled</option>
              {data.folders.map((f) => (
                <option
                  key={f.id}
                  value={f.id}
                  selected={f.id === item.folder_id}
                >
                  {"\u00a0".repeat((f.depth - 1) * 2)}
                  {f.name}
                </option>
              ))}
            </select>
            <button type="submit" class="secondary">Move</button>
          </form>
          <form method="post" encType="multipart/form-data" class="stack">
            <Hidden csrf={data.csrfToken} action="replace" id={item.id} />
            <h3>Replace the file</h3>
            <p class="muted">
              Keeps this item, where it is used, its folder, alt texts and focal
              point. Its address changes.
            </p>
            <label for="replace-file">New file ({item.kind})</label>
            <input id="replace-file" type="file" name="file" required />
            <button type="submit" class="secondary">Replace</button>
          </form>
        </>
      )}
      <h3>Used by</h3>
      {usage.at_least === 0 ? <p class="muted">Nothing uses this file.</p> : (
        <>
          <ul>
            {usage.used_by.map((u) => (
              <li key={u.entry_id}>
                {u.model_id}: {u.slug} <span class="muted">({u.locale})</span>
              </li>
            ))}
          </ul>
          {usage.hidden > 0 && (
            <p class="muted">And {usage.hidden} entries you cannot open.</p>
          )}
          {usage.more && (
            <p class="muted">And more: at least {usage.at_least} in all.</p>
          )}
        </>
      )}
      {data.may.delete && (
        <form method="post" class="stack">
          <Hidden csrf={data.csrfToken} action="remove" id={item.id} />
          <p class="muted">
            {usage.at_least > 0
              ? "A file that entries use cannot be removed: remove it from them first."
              : "Removing deletes the file for good."}
          </p>
          <button type="submit" class="danger">Remove file</button>
        </form>
      )}
    </section>
  );
}

/** The whole page. */
export function LibraryPage({ data }: PageProps<LibraryData>) {
  const folderName = data.folders.find((f) => f.id === data.folder)?.name ??
    null;
  return (
    <AdminShell
      shell={data.shell}
      title={data.title}
      actions={data.may.upload && (
        <a class="button secondary" href="/admin/media/sources">
          Browse plugin media sources
        </a>
      )}
    >
      <div class="media-page">
        {data.error && <p role="alert" class="alert">{data.error}</p>}
        {data.duplicate && (
          <section class="card" role="alert" aria-labelledby="dup-heading">
            <h2 id="dup-heading">This file is already in the library</h2>
            <p>
              “{data.duplicate.fileName}” has exactly the same content as “{data
                .duplicate.existing.file_name}” ({data.duplicate.copies === 1
                ? "1 copy"
                : `${data.duplicate.copies} copies`}). Nothing was uploaded.
            </p>
            <p>
              <a href={href(data, { item: data.duplicate.existing.id })}>
                Use the existing file
              </a>
            </p>
            <form method="post" encType="multipart/form-data" class="stack">
              <Hidden csrf={data.csrfToken} action="upload" />
              <input type="hidden" name="on_duplicate" value="copy" />
              <label for="copy-file">
                Or upload a copy: choose the file again
              </label>
              <input id="copy-file" type="file" name="file" required />
              <button type="submit" class="secondary">Upload a copy</button>
            </form>
          </section>
        )}
        <div class="media-layout">
          <Folders data={data} />
          <div class="media-main">
            <form method="get" class="media-search" role="search">
              {data.folder && (
                <input type="hidden" name="folder" value={data.folder} />
              )}
              <label for="media-q">Search by name</label>
              <input
                id="media-q"
                type="search"
                name="q"
                value={data.q}
                maxLength={200}
              />
              <button type="submit" class="secondary">Search</button>
            </form>
            {data.may.upload && (
              <MediaUploader
                csrfToken={data.csrfToken}
                folderId={data.folder && data.folder !== "unfiled"
                  ? data.folder
                  : null}
                folderName={folderName}
              />
            )}
            {data.selected && <Details data={data} />}
            <section aria-labelledby="files-heading">
              <h2 id="files-heading">
                {folderName ??
                  (data.folder === "unfiled" ? "Unfiled" : "All files")}
              </h2>
              <Grid data={data} />
              {data.nextCursor && (
                <p>
                  <a href={href(data, { cursor: data.nextCursor })}>
                    More files
                  </a>
                </p>
              )}
            </section>
          </div>
        </div>
      </div>
    </AdminShell>
  );
}
