// The page editor's markup: section rows, the form of one section, adding a section and the
// structure preview, built from the page editor's state (routes/admin/content/[model]/[id]/sections.tsx).
import type { FormNode } from "../../core/admin/page_sections.ts";
import { SECTION_TYPE_LABELS } from "../../core/admin/page_sections.ts";
import type { PageEditorState } from "../../core/admin/page_editor.ts";
import type { ShellData } from "../../core/admin/shell.ts";
import type { PageDocument } from "../../core/pages/parse.ts";
import { type SectionType } from "../../core/pages/vocabulary.ts";
import PageSections from "../../islands/PageSections.tsx";
import SaveShortcut from "../../islands/SaveShortcut.tsx";
import { Nodes } from "./_section_fields.tsx";
import { AdminShell } from "./_shell.tsx";
import { PolicyNotes } from "./_editor_sidebar.tsx";

/** The page editor's address of a page. */
export function sectionsUrl(
  model: { slug: string },
  state: { groupId: string },
): string {
  return `/admin/content/${model.slug}/${state.groupId}/sections`;
}

/** The section form shown: an existing section, or a new one of a type at a position. */
export interface SectionForm {
  /** The section's id before this form; null for a new one. */
  replacing: string | null;
  type: SectionType;
  at: number;
  structure: FormNode[];
  props: FormNode[];
  /** Refusals no control concerns (the section as a whole). */
  unplaced: string[];
}

/** What the page editor shows. */
export interface SectionsData {
  shell: ShellData;
  model: { slug: string; name: string };
  state: PageEditorState;
  /** The version the forms are pinned to (the one shown, or after a conflict the newest). */
  expected: string;
  form?: SectionForm;
  notice?: string;
  alert?: string;
  /** What plugin policies said of the last save. */
  policyNotes?: string[];
  focus?: string;
}

/** The words that name a section: its heading, or the shared item it shows. */
function headingOf(
  data: SectionsData,
  section: PageDocument["sections"][number],
  props: Record<string, unknown> | undefined,
): string | null {
  const heading = props?.heading;
  if (typeof heading === "string") return heading;
  if (!section.shared) return null;
  return data.state.sharedChoices.find((c) => c.value === section.shared!.entry)
    ?.label ?? null;
}

/** The section's main list, the one its row counts and its preview draws a box per item of. */
function mainList(
  props: Record<string, unknown> | undefined,
): { key: string; list: unknown[] } | null {
  for (const key of ["items", "features", "plans", "groups", "fields"]) {
    const list = props?.[key];
    if (Array.isArray(list)) return { key, list };
  }
  return null;
}

/** How many items the section's main list holds, in words (`4 items`), or null. */
function countOf(props: Record<string, unknown> | undefined): string | null {
  const main = mainList(props);
  if (!main) return null;
  const one = main.list.length === 1;
  const noun = main.key === "fields"
    ? one ? "field" : "fields"
    : one
    ? "item"
    : "items";
  return `${main.list.length} ${noun}`;
}

function Hidden(props: { data: SectionsData; action?: string }) {
  return (
    <>
      <input type="hidden" name="_csrf" value={props.data.shell.csrfToken} />
      <input type="hidden" name="lang" value={props.data.state.locale} />
      <input
        type="hidden"
        name="expected_current_version_id"
        value={props.data.expected}
      />
      {props.action && (
        <input type="hidden" name="action" value={props.action} />
      )}
    </>
  );
}

function SectionEditorForm(props: { data: SectionsData; form: SectionForm }) {
  const { data, form } = props;
  const label = SECTION_TYPE_LABELS[form.type];
  const title = form.replacing === null
    ? `New section: ${label}`
    : `Edit section: ${label}`;
  return (
    <section
      class="card section-form"
      aria-labelledby="section-form-title"
      id="section-form-card"
    >
      <h2 id="section-form-title">{title}</h2>
      {form.unplaced.map((m) => <p class="alert" key={m}>{m}</p>)}
      <form method="post" id="section-form" novalidate>
        {/* Enter in a field saves: the first submit button of a form is its default. */}
        <button
          type="submit"
          name="action"
          value="save"
          class="visually-hidden"
          tabindex={-1}
          aria-hidden="true"
        >
          Save section
        </button>
        <Hidden data={data} />
        <input type="hidden" name="section" value={form.replacing ?? ""} />
        <input type="hidden" name="type" value={form.type} />
        <input type="hidden" name="at" value={String(form.at)} />
        <fieldset class="section-group">
          <legend>Placement and look</legend>
          <Nodes nodes={form.structure} media={data.state.mediaChoices} />
        </fieldset>
        {form.props.length > 0 && (
          <fieldset class="section-group">
            <legend>Content in {data.state.locale}</legend>
            <Nodes nodes={form.props} media={data.state.mediaChoices} />
          </fieldset>
        )}
        <div class="buttons">
          <button type="submit" name="action" value="save" id="section-save">
            {form.replacing === null ? "Add section" : "Save section"}
          </button>
          <SaveShortcut formId="section-form" buttonId="section-save" />
          <a
            class="button secondary"
            href={`${
              sectionsUrl(data.model, data.state)
            }?lang=${data.state.locale}`}
          >
            Cancel
          </a>
        </div>
      </form>
    </section>
  );
}

function SectionRow(
  props: { data: SectionsData; document: PageDocument; index: number },
) {
  const { data, document, index } = props;
  const section = document.sections[index];
  const sectionProps = document.props[section.id];
  const heading = headingOf(data, section, sectionProps);
  const label = SECTION_TYPE_LABELS[section.type];
  const name = heading ?? label;
  const count = countOf(sectionProps);
  const editing = data.form?.replacing === section.id;
  const url = `${
    sectionsUrl(data.model, data.state)
  }?lang=${data.state.locale}`;
  const may = data.state.mayUpdate;
  const last = document.sections.length - 1;
  return (
    <li
      class={`section-row card${editing ? " editing" : ""}`}
      id={`section-${section.id}`}
      data-section-id={section.id}
      aria-current={editing ? "true" : undefined}
    >
      {may && (
        <span
          class="drag-handle"
          data-drag-handle
          aria-hidden="true"
          title="Drag to move"
        >
          ⠿
        </span>
      )}
      <div class="section-summary">
        <span class="badge">{label}</span>{" "}
        <strong data-preview-text={`${section.id}.heading`}>
          {heading ?? ""}
        </strong>
        <span class="muted">
          {` #${section.id}`}
          {count ? ` · ${count}` : ""}
          {section.shared ? " · shared" : ""}
        </span>
      </div>
      {may && (
        <div class="buttons section-actions">
          <a
            class="button secondary"
            href={`${url}&edit=${
              encodeURIComponent(section.id)
            }#section-form-card`}
            aria-label={`Edit “${name}”`}
          >
            Edit
          </a>
          <form method="post" class="inline">
            <Hidden data={data} action="move" />
            <input type="hidden" name="section" value={section.id} />
            <button
              type="submit"
              class="secondary"
              name="to"
              value={String(index - 1)}
              disabled={index === 0}
              aria-label={`Move “${name}” up`}
            >
              Up
            </button>
            <button
              type="submit"
              class="secondary"
              name="to"
              value={String(index + 1)}
              disabled={index === last}
              aria-label={`Move “${name}” down`}
            >
              Down
            </button>
          </form>
          <form method="post" class="inline">
            <Hidden data={data} action="duplicate" />
            <input type="hidden" name="section" value={section.id} />
            <button
              type="submit"
              class="secondary"
              aria-label={`Duplicate “${name}”`}
              disabled={document.sections.length >= data.state.maxSections}
            >
              Duplicate
            </button>
          </form>
          <form method="post" class="inline">
            <Hidden data={data} action="remove" />
            <input type="hidden" name="section" value={section.id} />
            <button
              type="submit"
              class="danger"
              aria-label={`Remove “${name}”`}
            >
              Remove
            </button>
          </form>
        </div>
      )}
    </li>
  );
}

function AddSection(props: { data: SectionsData; document: PageDocument }) {
  const { data, document } = props;
  const full = document.sections.length >= data.state.maxSections;
  return (
    <form method="get" class="card add-section" aria-labelledby="add-title">
      <h2 id="add-title">Add a section</h2>
      {full
        ? (
          <p class="muted">
            This page holds the most sections it may ({data.state.maxSections}).
          </p>
        )
        : (
          <div class="add-row">
            <input type="hidden" name="lang" value={data.state.locale} />
            <div class="field">
              <label for="add-type">Type</label>
              <select id="add-type" name="add">
                {data.state.addable.map((t) => (
                  <option key={t} value={t}>{SECTION_TYPE_LABELS[t]}</option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="add-at">Position</label>
              <select id="add-at" name="at">
                <option value={String(document.sections.length)}>
                  At the end
                </option>
                {document.sections.length > 0 && (
                  <option value="0">At the top</option>
                )}
                {document.sections.slice(0, -1).map((s, i) => (
                  <option key={s.id} value={String(i + 1)}>
                    After “{headingOf(data, s, document.props[s.id]) ?? s.id}”
                  </option>
                ))}
              </select>
            </div>
            <button type="submit">Add section</button>
          </div>
        )}
      <p class="hint">
        {document.sections.length} of {data.state.maxSections} sections.
      </p>
    </form>
  );
}

/** A schematic of the page: one block per section, its heading and a box per item. */
function StructurePreview(
  props: { data: SectionsData; document: PageDocument },
) {
  const { data, document } = props;
  return (
    <aside class="card page-preview" aria-labelledby="preview-title">
      <h2 id="preview-title">Structure preview</h2>
      {document.sections.length === 0 && <p class="muted">No sections yet.</p>}
      <ol class="preview-blocks">
        {document.sections.map((s) => {
          const p = document.props[s.id];
          const list = mainList(p)?.list;
          return (
            <li
              key={s.id}
              class={`preview-block preview-${s.type}${
                s.appearance?.background ? ` bg-${s.appearance.background}` : ""
              }${data.form?.replacing === s.id ? " editing" : ""}`}
            >
              <span class="preview-type">{SECTION_TYPE_LABELS[s.type]}</span>
              <span
                class="preview-heading"
                data-preview-text={`${s.id}.heading`}
              >
                {headingOf(data, s, p) ?? ""}
              </span>
              {list && list.length > 0 && (
                <>
                  <span class="visually-hidden">{countOf(p)}</span>
                  <span class="preview-items" aria-hidden="true">
                    {list.slice(0, 12).map((_, i) => (
                      <span key={i} class="preview-item" />
                    ))}
                  </span>
                </>
              )}
            </li>
          );
        })}
      </ol>
    </aside>
  );
}

/**
 * Publish and Preview of the page language as the list shows it, in a bar that stays in view; a
 * section being edited is saved with its own form first (Ctrl+S).
 */
function PublishBar({ data }: { data: SectionsData }) {
  const { state } = data;
  const entry = `/admin/content/${data.model.slug}/${state.groupId}`;
  return (
    <div class="action-bar" role="group" aria-label="Publish this page">
      <form method="post" class="inline">
        <Hidden data={data} action="publish" />
        <button type="submit">Publish {state.locale}</button>
      </form>
      <form method="post" action={entry} class="inline">
        <input type="hidden" name="_csrf" value={data.shell.csrfToken} />
        <input type="hidden" name="lang" value={state.locale} />
        <input type="hidden" name="action" value="preview" />
        <button type="submit" class="secondary">Preview</button>
      </form>
      {data.form && (
        <span class="hint action-bar-keys">
          Save the open section first (Ctrl+S)
        </span>
      )}
    </div>
  );
}

/** The page editor: language tabs, the open section form, the list of sections and the preview. */
export function PageSectionsView({ data }: { data: SectionsData }) {
  const { state } = data;
  const document = state.document;
  const entryUrl =
    `/admin/content/${data.model.slug}/${state.groupId}?lang=${state.locale}`;
  return (
    <AdminShell
      shell={data.shell}
      title={`Sections of “${state.title}”`}
      actions={
        <a class="button secondary" href={entryUrl}>Open the entry editor</a>
      }
    >
      <nav aria-label="Languages">
        <ul class="tabs">
          {state.locales.map((l) => (
            <li key={l}>
              <a
                href={`${sectionsUrl(data.model, state)}?lang=${l}`}
                aria-current={l === state.locale ? "page" : undefined}
              >
                {l}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {data.notice && <p class="notice" role="status">{data.notice}</p>}
      <PolicyNotes lines={data.policyNotes} />
      {data.alert && <p class="alert" role="alert">{data.alert}</p>}
      {!state.mayUpdate && (
        <p class="warning">
          You may read this page's sections but not change them in this
          language.
        </p>
      )}
      {document === null
        ? (
          <p class="alert">
            This language's page document cannot be read ({state.documentError
              ?.message} at{" "}
            <code>{state.documentError?.path}</code>). Fix it in the{" "}
            <a href={entryUrl}>entry editor</a> or through the Management API.
          </p>
        )
        : (
          <div class="page-editor">
            <div class="page-editor-main">
              {state.mayUpdate && <PublishBar data={data} />}
              {data.form && <SectionEditorForm data={data} form={data.form} />}
              <section aria-labelledby="sections-title" id="section-list">
                <h2 id="sections-title">Sections in {state.locale}</h2>
                {document.sections.length === 0 && (
                  <p class="card muted">
                    This page has no sections yet: add the first below.
                  </p>
                )}
                <ol class="section-rows" id="section-rows">
                  {document.sections.map((s, i) => (
                    <SectionRow
                      key={s.id}
                      data={data}
                      document={document}
                      index={i}
                    />
                  ))}
                </ol>
                {state.mayUpdate && (
                  <form method="post" id="section-move" hidden>
                    <Hidden data={data} action="move" />
                    <input type="hidden" name="section" value="" />
                    <input type="hidden" name="to" value="" />
                  </form>
                )}
              </section>
              {state.mayUpdate && (
                <AddSection
                  data={data}
                  document={document}
                />
              )}
            </div>
            <StructurePreview data={data} document={document} />
            {state.mayUpdate && (
              <PageSections
                listId="section-rows"
                moveFormId="section-move"
                formId="section-form"
              />
            )}
          </div>
        )}
    </AdminShell>
  );
}
