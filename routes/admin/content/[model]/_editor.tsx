// The entry editor page: language tabs, the field form, and the sidebar of workflow actions.
import SlugField from "../../../../islands/SlugField.tsx";
import Autosave from "../../../../islands/Autosave.tsx";
import SaveShortcut from "../../../../islands/SaveShortcut.tsx";
import { FieldInput } from "../../_fields.tsx";
import { AdminShell } from "../../_shell.tsx";

import {
  actionBarPublishes,
  type EditorData,
  PolicyNotes,
  PreviewReady,
  Sidebar,
} from "../../_editor_sidebar.tsx";

export type { Conflict, EditorData } from "../../_editor_sidebar.tsx";
export { PolicyNotes } from "../../_editor_sidebar.tsx";

function LanguageTabs({ data }: { data: EditorData }) {
  const { editor, model } = data;
  if (data.isNew) return null;
  return (
    <nav aria-label="Languages">
      <ul class="tabs">
        {editor.languages.map((l) => (
          <li key={l.code}>
            <a
              href={`/admin/content/${model.slug}/${editor.groupId}?lang=${l.code}`}
              aria-current={l.code === editor.locale ? "page" : undefined}
            >
              {l.code}
              <span
                class={`badge ${
                  l.state === "translated"
                    ? l.published ? "published" : "draft"
                    : l.state === "fallback"
                    ? ""
                    : "missing"
                }`}
              >
                {l.state === "translated"
                  ? l.published ? "published" : "translated"
                  : l.state === "fallback"
                  ? `falls back to ${l.from}`
                  : "missing"}
              </span>
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function ConflictView({ data }: { data: EditorData }) {
  if (!data.conflict) return null;
  return (
    <section class="card" aria-labelledby="conflict-heading">
      <h2 id="conflict-heading">Someone saved this entry while you edited</h2>
      <p>
        Your changes are still in the form below. Save again to keep your
        version (it replaces theirs), or load theirs and drop your changes.
      </p>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Your version</th>
              <th scope="col">Saved version</th>
            </tr>
          </thead>
          <tbody>
            {data.conflict.rows.map((row) => (
              <tr key={row.key}>
                <th scope="row">{row.label}</th>
                <td>
                  <pre>{row.mine}</pre>
                </td>
                <td>
                  <pre>{row.theirs}</pre>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p class="buttons">
        <button type="submit" form="entry-form">Keep my version</button>
        <a
          class="button secondary"
          href={`/admin/content/${data.model.slug}/${data.editor.groupId}?lang=${data.editor.locale}`}
        >
          Use the saved version
        </a>
      </p>
    </section>
  );
}

/** The person's autosaved work offered back, and who else is editing this language. */
function DraftNotice({ data }: { data: EditorData }) {
  const drafts = data.drafts;
  if (!drafts || data.restored) return null;
  const base = `/admin/content/${data.model.slug}/${data.editor.groupId}`;
  const lang = encodeURIComponent(data.editor.locale);
  return (
    <>
      {drafts.heldBy && (
        <p class="warning" role="status">
          {drafts.heldBy}{" "}
          is also editing this language: their unsaved changes are not in this
          form.
        </p>
      )}
      {drafts.own && (
        <section class="card draft-notice" aria-labelledby="draft-heading">
          <h2 id="draft-heading">Unsaved changes</h2>
          <p>
            Your changes from{" "}
            {drafts.own.updatedAt.slice(0, 16).replace("T", " ")}{" "}
            UTC were autosaved but not saved as a version.
          </p>
          <div class="buttons">
            <a class="button" href={`${base}?lang=${lang}&draft=restore`}>
              Restore them
            </a>
            <form method="post" action={`${base}/draft`} class="inline">
              <input type="hidden" name="_csrf" value={data.shell.csrfToken} />
              <input type="hidden" name="lang" value={data.editor.locale} />
              <input type="hidden" name="action" value="discard" />
              <button type="submit" class="secondary">Discard them</button>
            </form>
          </div>
        </section>
      )}
    </>
  );
}

/**
 * Save draft, Publish and Preview in one bar at the top of the form that stays in view while the
 * form scrolls: a few Shift+Tab presses from the title reach it, and Ctrl+S saves from anywhere.
 */
function ActionBar({ data }: { data: EditorData }) {
  const { editor } = data;
  const publishes = actionBarPublishes(data);
  return (
    <div class="action-bar" role="group" aria-label="Save and publish">
      <button type="submit" name="action" value="save" id="action-save">
        {data.isNew
          ? "Create draft"
          : editor.exists
          ? "Save draft"
          : `Save ${editor.locale} translation`}
      </button>
      {publishes && (
        <button
          type="submit"
          name="action"
          value="save_publish"
          class="secondary"
        >
          Publish {editor.locale}
        </button>
      )}
      {editor.exists && data.model.isPublic && (
        <button
          type="submit"
          name="action"
          value="save_preview"
          class="secondary"
        >
          Preview
        </button>
      )}
      <span class="hint action-bar-keys">Ctrl+S saves</span>
      {data.drafts && editor.exists && (
        <Autosave
          formId="entry-form"
          url={`/admin/content/${data.model.slug}/${editor.groupId}/draft`}
          revisionInputId="draft-revision"
        />
      )}
      <SaveShortcut formId="entry-form" buttonId="action-save" />
    </div>
  );
}

/** The editor page of an entry language, or of a new entry. */
export function EditorPage({ data }: { data: EditorData }) {
  const { editor } = data;
  const slugError = data.errors["_slug"] ?? [];
  const editable = data.isNew || (editor.mayUpdate && !editor.trashed);
  const titleInput = editor.titleKey ? `field-${editor.titleKey}` : "";
  return (
    <AdminShell shell={data.shell} title={data.title}>
      {data.notice && <p class="notice" role="status">{data.notice}</p>}
      <PolicyNotes lines={data.policyNotes} />
      {data.alert && (
        <p class="alert" role="alert" id="editor-alert">{data.alert}</p>
      )}
      <PreviewReady data={data} />
      <ConflictView data={data} />
      <LanguageTabs data={data} />
      {!editor.exists && !data.isNew && (
        <p class="warning">
          This entry has no {editor.locale} version yet
          {editor.startedFrom
            ? ` : the form starts from the ${editor.startedFrom} values. Saving adds ${editor.locale}.`
            : "."}
        </p>
      )}
      <DraftNotice data={data} />
      <div class="editor">
        <form
          method="post"
          id="entry-form"
          class="card"
          noValidate
          aria-label={`Edit ${data.title}`}
        >
          <input type="hidden" name="_csrf" value={data.shell.csrfToken} />
          <input type="hidden" name="lang" value={editor.locale} />
          <input
            type="hidden"
            name="expected_current_version_id"
            value={editor.currentVersionId ?? ""}
          />
          {data.drafts && (
            <input
              type="hidden"
              name="draft_revision"
              id="draft-revision"
              value={data.drafts.own ? String(data.drafts.own.revision) : ""}
            />
          )}
          {editable && <ActionBar data={data} />}
          <fieldset disabled={!editable}>
            <legend class="visually-hidden">Fields</legend>
            <div class="field" data-field="_slug">
              <label for="field-_slug">Slug</label>
              {slugError.length > 0 && (
                <p class="field-error" id="error-_slug">
                  {slugError.join("; ")}
                </p>
              )}
              <SlugInput
                value={editor.slug}
                invalid={slugError.length > 0}
                sourceId={titleInput}
                autoFill={!editor.exists}
              />
              <p class="hint" id="hint-_slug">
                The entry's address in this language: lower-case letters, digits
                and single hyphens
                {editor.liveSlug !== null &&
                  ` · Readers keep the address "${editor.liveSlug}" until this language is published again`}
              </p>
            </div>
            {editor.controls.map((control) => (
              <FieldInput
                key={control.key}
                control={control}
                value={editor.raw[control.key] ?? ""}
                errors={data.errors[control.key] ?? []}
                choices={editor.relationChoices[control.key]}
                itemChoices={control.children
                  ? editor.relationChoices
                  : undefined}
                mediaItems={editor.mediaChoices}
                altLanguage={editor.altLanguage}
                choicesUrl={`/admin/content/${data.model.slug}/choices`}
                sourceId={control.source
                  ? `field-${control.source}`
                  : undefined}
                autoFill={!editor.exists}
              />
            ))}
          </fieldset>
          {!editable && (
            <p class="muted">
              {editor.trashed
                ? "Entries in Trash cannot be changed: restore it first."
                : "Your role may not change this entry in this language."}
            </p>
          )}
        </form>
        <Sidebar data={data} />
      </div>
    </AdminShell>
  );
}

function SlugInput(
  props: {
    value: string;
    invalid: boolean;
    sourceId: string;
    autoFill: boolean;
  },
) {
  return (
    <SlugField
      id="field-_slug"
      name="slug"
      value={props.value}
      readOnly={false}
      describedBy={props.invalid ? "error-_slug hint-_slug" : "hint-_slug"}
      invalid={props.invalid}
      sourceId={props.sourceId}
      autoFill={props.autoFill}
    />
  );
}
