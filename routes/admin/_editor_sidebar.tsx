// The entry editor's sidebar and what the editor page shows (routes/admin/content/[model]/_editor.tsx):
// the workflow actions, assignee, preview, history and plugin cards beside the field form.
import type { ComponentChildren } from "preact";
import type { EditorState } from "../../core/admin/editor.ts";
import type { ShellData } from "../../core/admin/shell.ts";
import type { PluginCard } from "../../core/plugins/cards.ts";
import type { DraftState } from "../../core/admin/autosave.ts";
import { PluginCards } from "./_plugin_slots.tsx";

/** A save refused because someone saved first: both versions, so the person can choose. */
export interface Conflict {
  rows: { key: string; label: string; mine: string; theirs: string }[];
}

/** What the editor page shows. */
export interface EditorData {
  title: string;
  shell: ShellData;
  model: {
    id: string;
    slug: string;
    name: string;
    isPublic?: boolean;
    /** The model holds page documents: the page editor edits their sections. */
    isPage?: boolean;
  };
  /** Absent for a new entry. */
  editor: EditorState;
  isNew: boolean;
  /** Field refusals by field key (the path's first segment). */
  errors: Record<string, string[]>;
  alert?: string;
  notice?: string;
  /** What plugin policies said of the last write. */
  policyNotes?: string[];
  conflict?: Conflict;
  /** Working drafts of this language (existing entries only). */
  drafts?: DraftState;
  /** True when the form holds the person's autosaved values. */
  restored?: boolean;
  /** Plugin cards offered for this entry, and the entry language's own id they launch on. */
  plugins?: { cards: PluginCard[]; instanceId: string };
  /** Plugin operations the person may run on this entry language now. */
  operations?: { count: number; instanceId: string };
  /** A preview link just made: shown on this answer only (it carries its token). */
  preview?: {
    href: string;
    minutes: number;
    relatedDrafts: boolean;
    siteHref?: string;
    /** The site's own front end: a form posting the token to its preview address. */
    post?: { action: string; fields: Record<string, string> };
  };
  /** The site's front-end preview address (public models' existing entries). */
  previewAddress?: {
    url: string | null;
    mayChange: boolean;
    /** True when the built-in renderer serves the site: its pages are the preview. */
    rendered: boolean;
    /** What was typed, shown again after a refusal. */
    typed?: string;
  };
  /** The published language on the site's renderer, when one serves the site. */
  siteHref?: string;
}

const STAGE_LABELS: Record<string, string> = {
  draft: "Draft",
  in_review: "In review",
  changes_requested: "Changes requested",
  approved: "Approved",
};

const MOVE_LABELS: Record<string, string> = {
  submit: "Submit for review",
  approve: "Approve",
  request_changes: "Request changes",
  withdraw: "Withdraw from review",
};

/**
 * True when the editor's action bar offers Publish (the form can be saved and the person may
 * publish), so the sidebar does not offer a second one.
 */
export function actionBarPublishes(data: EditorData): boolean {
  const { editor } = data;
  const editable = data.isNew || (editor.mayUpdate && !editor.trashed);
  return editable && editor.exists &&
    (editor.transitions.includes("publish") ||
      (editor.publishedVersionId !== null &&
        editor.transitions.includes("unpublish")));
}

/** A one-button workflow action, pinned to the versions the page shows. */
export function ActionForm(
  props: {
    data: EditorData;
    action: string;
    label: string;
    kind?: "secondary" | "danger";
    /** Controls shown before the button. */
    children?: ComponentChildren;
  },
) {
  const { editor } = props.data;
  return (
    <form method="post" class="inline">
      <input
        type="hidden"
        name="_csrf"
        value={props.data.shell.csrfToken}
      />
      <input type="hidden" name="action" value={props.action} />
      <input type="hidden" name="lang" value={editor.locale} />
      <input type="hidden" name="revision" value={String(editor.revision)} />
      <input
        type="hidden"
        name="expected_current_version_id"
        value={editor.currentVersionId ?? ""}
      />
      <input
        type="hidden"
        name="expected_published_version_id"
        value={editor.publishedVersionId ?? ""}
      />
      {props.children}
      <button type="submit" class={props.kind}>{props.label}</button>
    </form>
  );
}

/** The editor's sidebar: status and workflow actions, assignee, sections, preview, history, plugins. */
export function Sidebar({ data }: { data: EditorData }) {
  const { editor, model } = data;
  if (data.isNew) {
    return (
      <aside class="card">
        <h2>New entry</h2>
        <p class="muted">
          It is saved as a draft in{" "}
          {editor.locale}. Publish it once it is ready; translations can be
          added after the first save.
        </p>
      </aside>
    );
  }
  const has = (t: string) => editor.transitions.includes(t);
  const state = editor.trashed
    ? "trashed"
    : editor.publishedVersionId === null
    ? "draft"
    : editor.publishedVersionId === editor.currentVersionId
    ? "published"
    : "changed";
  const stateLabel = {
    trashed: "In Trash",
    draft: "Draft",
    published: "Published",
    changed: "Published, with unpublished changes",
  }[state];
  return (
    <aside>
      <section class="card" aria-labelledby="status-heading">
        <h2 id="status-heading">Status</h2>
        <p>
          <span class={`badge ${state}`}>{stateLabel}</span>{" "}
          {editor.stage !== "draft" && (
            <span class="badge">{STAGE_LABELS[editor.stage]}</span>
          )}
        </p>
        {editor.exists && (
          <div class="stack">
            {has("publish") && !actionBarPublishes(data) && (
              <ActionForm
                data={data}
                action="publish"
                label={`Publish ${editor.locale}`}
              />
            )}
            {has("unpublish") && (
              <ActionForm
                data={data}
                action="unpublish"
                label={`Unpublish ${editor.locale}`}
                kind="secondary"
              />
            )}
            {["submit", "approve", "request_changes", "withdraw"].filter(has)
              .map((move) => (
                <ActionForm
                  key={move}
                  data={data}
                  action={move}
                  label={MOVE_LABELS[move]}
                  kind="secondary"
                />
              ))}
          </div>
        )}
      </section>
      {data.editor.mayAssign && (
        <section class="card" aria-labelledby="assignee-heading">
          <h2 id="assignee-heading">Assignee</h2>
          <form method="post" class="stack">
            <input type="hidden" name="_csrf" value={data.shell.csrfToken} />
            <input type="hidden" name="action" value="assign" />
            <input type="hidden" name="lang" value={editor.locale} />
            <label for="assignee">Who acts next</label>
            <select id="assignee" name="assignee">
              <option value="">Nobody</option>
              {editor.assignees.map((a) => (
                <option value={a.id} selected={a.id === editor.assigneeId}>
                  {a.label}
                </option>
              ))}
            </select>
            <button type="submit" class="secondary">Assign</button>
          </form>
        </section>
      )}
      {editor.exists && data.model.isPage && (
        <section class="card" aria-labelledby="sections-heading">
          <h2 id="sections-heading">Page sections</h2>
          <p class="hint">
            Add, reorder and edit this page's sections in {editor.locale}{" "}
            with a form per section.
          </p>
          <a
            class="button secondary"
            href={`/admin/content/${model.slug}/${editor.groupId}/sections?lang=${editor.locale}`}
          >
            Edit the sections
          </a>
        </section>
      )}
      {editor.exists && data.model.isPublic && (
        <section class="card" aria-labelledby="preview-heading">
          <h2 id="preview-heading">Preview</h2>
          {data.siteHref && (
            <p>
              <a href={data.siteHref} target="_blank" rel="noopener">
                View on site
              </a>{" "}
              <span class="hint">(the published {editor.locale} page)</span>
            </p>
          )}
          <p class="hint">
            {data.preview
              ? "The preview's links are at the top of the page."
              : "The current draft as readers would get it, before it is published."}
          </p>
          <ActionForm
            data={data}
            action="preview"
            label={data.preview ? "Make a new link" : "Preview this draft"}
            kind="secondary"
          >
            <label class="check">
              <input
                type="checkbox"
                name="related_drafts"
                value="on"
                checked={data.preview?.relatedDrafts}
              />{" "}
              Show linked items as their saved drafts (those you may read)
            </label>
          </ActionForm>
          <PreviewAddressForm data={data} />
        </section>
      )}
      <section class="card" aria-labelledby="history-heading">
        <h2 id="history-heading">History</h2>
        <ul class="plain">
          <li>
            <a
              href={`/admin/content/${model.slug}/${editor.groupId}/versions?lang=${editor.locale}`}
            >
              Versions and restore
            </a>
          </li>
          <li>
            <a
              href={`/admin/content/${model.slug}/${editor.groupId}/proposals?lang=${editor.locale}`}
            >
              Proposals
            </a>
          </li>
        </ul>
        <div class="stack">
          {has("trash") && (
            <ActionForm
              data={data}
              action="trash"
              label="Move to Trash"
              kind="danger"
            />
          )}
          {has("restore") && (
            <ActionForm
              data={data}
              action="restore"
              label="Restore from Trash"
            />
          )}
        </div>
      </section>
      <PluginCards
        model={model.id}
        entry={editor.groupId}
        locale={editor.locale}
        instance={data.plugins?.instanceId}
        cards={data.plugins?.cards}
        csrfToken={data.shell.csrfToken}
      />
      {data.operations && (
        <section class="card" aria-labelledby="operations-heading">
          <h2 id="operations-heading">Plugin operations</h2>
          <p class="hint">
            {data.operations.count === 1
              ? "One operation"
              : `${data.operations.count} operations`}{" "}
            of installed plugins can run on this entry.
          </p>
          <a
            class="button secondary"
            href={`/admin/plugins/operations?instance=${data.operations.instanceId}`}
          >
            Run an operation
          </a>
        </section>
      )}
    </aside>
  );
}

/** What plugin policies said of the last write: saved, with these warnings or changes. */
export function PolicyNotes({ lines }: { lines?: string[] }) {
  if (!lines || lines.length === 0) return null;
  return (
    <div class="warning" role="status" id="policy-notes">
      <p>Plugin policies said:</p>
      <ul>{lines.map((line, n) => <li key={n}>{line}</li>)}</ul>
    </div>
  );
}

/**
 * The site's front-end preview address, for people who may change site settings: where Preview
 * opens a draft when no built-in renderer serves the site.
 */
function PreviewAddressForm({ data }: { data: EditorData }) {
  const address = data.previewAddress;
  if (!address || !address.mayChange) return null;
  return (
    <details class="preview-address" open={address.typed !== undefined}>
      <summary>Your site's preview address</summary>
      <form method="post" class="stack">
        <input type="hidden" name="_csrf" value={data.shell.csrfToken} />
        <input type="hidden" name="action" value="preview_address" />
        <input type="hidden" name="lang" value={data.editor.locale} />
        <label for="preview-address">Preview address</label>
        <input
          id="preview-address"
          name="preview_address"
          type="url"
          value={address.typed ?? address.url ?? ""}
          placeholder="https://www.example.com/api/preview"
          aria-describedby="preview-address-hint"
        />
        <p class="hint" id="preview-address-hint">
          {address.rendered
            ? "The built-in renderer serves this site, so Preview opens its pages; this address is used when it does not. "
            : ""}
          Preview posts the draft's preview token, model, slug, language and
          path to this address of your front end (the token never appears in an
          address). Leave it empty to preview as JSON.
        </p>
        <button type="submit" class="secondary">Save address</button>
      </form>
    </details>
  );
}

/** The preview just made: the rendered page, the site's own front end, or the JSON answer. */
export function PreviewReady({ data }: { data: EditorData }) {
  const preview = data.preview;
  if (!preview) return null;
  const locale = data.editor.locale;
  const note =
    `The link works for ${preview.minutes} minutes; share it only with people who may see drafts${
      preview.relatedDrafts
        ? ", including the drafts of linked items you may read"
        : ""
    }.`;
  return (
    <section
      class="card preview-ready"
      aria-labelledby="preview-ready-heading"
    >
      <h2 id="preview-ready-heading">Preview of the {locale} draft</h2>
      {preview.siteHref
        ? (
          <p>
            <a
              class="button"
              href={preview.siteHref}
              target="_blank"
              rel="noopener noreferrer"
            >
              Open the preview
            </a>
          </p>
        )
        : preview.post
        ? (
          <form
            method="post"
            action={preview.post.action}
            target="_blank"
            rel="noopener noreferrer"
          >
            {Object.entries(preview.post.fields).map(([name, value]) => (
              <input key={name} type="hidden" name={name} value={value} />
            ))}
            <button type="submit">Open the preview on your site</button>
          </form>
        )
        : null}
      <p>
        <a href={preview.href} target="_blank" rel="noopener noreferrer">
          {preview.siteHref || preview.post
            ? "Read it as JSON from the public API"
            : `Open the ${locale} draft as the public API serves it`}
        </a>
      </p>
      <p class="hint">{note}</p>
    </section>
  );
}
