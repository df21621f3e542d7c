// GET/POST /admin/content/{model}/{id}/sections?lang=..: the page editor. A page's sections as a
// list that can be added, reordered, duplicated and removed, and a form per section type; every
// change is a new draft version through the lifecycle service. Works without script; the
// PageSections island adds drag reordering and a live structure preview.
import type { Context } from "hono";
import { type AdminContext } from "../../../../../core/admin/context.ts";
import { refusalMessage } from "../../../../../core/admin/messages.ts";
import { takeNotes } from "../../../../../core/admin/policy_checks.ts";
import { modelBySlug } from "../../../../../core/admin/models.ts";
import {
  duplicateSection,
  freshSectionId,
  loadPageEditor,
  moveSection,
  type PageEditorState,
  putSection,
  removeSection,
  savePageDocument,
} from "../../../../../core/admin/page_editor.ts";
import {
  type FormNode,
  type GroupNode,
  type InputNode,
  type MediaResolver,
  placeErrors,
  readSectionProps,
  readStructure,
  SECTION_TYPE_LABELS,
  sectionPropNodes,
  type SectionStructure,
  structureNodes,
  withRowAdded,
} from "../../../../../core/admin/page_sections.ts";
import { one } from "../../../../../core/admin/form_values.ts";
import { requireSignedIn } from "../../../../../core/auth/session_middleware.ts";
import type { ShellData } from "../../../../../core/admin/shell.ts";
import type { PageDocument } from "../../../../../core/pages/parse.ts";
import {
  SECTION_TYPE_NAMES,
  type SectionType,
} from "../../../../../core/pages/vocabulary.ts";
import type { AppEnv } from "../../../../../core/web/env.ts";
import { page, type PageProps } from "../../../../../core/web/manifest.ts";
import MediaPicker from "../../../../../islands/MediaPicker.tsx";
import PageSections from "../../../../../islands/PageSections.tsx";
import { AdminShell, openAdminPage } from "../../../_shell.tsx";
import { PolicyNotes } from "../_editor.tsx";

export const middleware = requireSignedIn;

/** The section form shown: an existing section, or a new one of a type at a position. */
interface SectionForm {
  /** The section's id before this form; null for a new one. */
  replacing: string | null;
  type: SectionType;
  at: number;
  structure: FormNode[];
  props: FormNode[];
  /** Refusals no control concerns (the section as a whole). */
  unplaced: string[];
}

interface SectionsData {
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

const NOTICES: Record<string, string> = {
  saved: "Section saved as a draft.",
  added: "Section added to the draft.",
  moved: "Section moved.",
  duplicated: "Section duplicated: the copy follows the original.",
  removed:
    "Section removed from the draft. Older versions keep it (the entry's Versions page).",
};

function base(model: { slug: string }, state: { groupId: string }): string {
  return `/admin/content/${model.slug}/${state.groupId}/sections`;
}

async function open(c: Context<AppEnv>, locale: string) {
  const { ctx, shell } = await openAdminPage(c, []);
  const model = await modelBySlug(ctx, c.req.param("model")!);
  const state = await loadPageEditor(ctx, model, c.req.param("id")!, locale);
  shell.crumbs.push(
    { label: model.name, href: `/admin/content/${model.slug}` },
    {
      label: state.title,
      href:
        `/admin/content/${model.slug}/${state.groupId}?lang=${state.locale}`,
    },
    { label: "Sections" },
  );
  const data: SectionsData = {
    shell,
    model: { slug: model.slug, name: model.name },
    state,
    expected: state.currentVersionId ?? "",
  };
  return { ctx, data };
}

function isType(value: string, state: PageEditorState): value is SectionType {
  return (SECTION_TYPE_NAMES as string[]).includes(value) &&
    (state.addable as string[]).includes(value);
}

function structureOf(
  document: PageDocument,
  index: number,
): SectionStructure {
  const s = document.sections[index];
  return {
    id: s.id,
    type: s.type,
    variant: s.variant,
    layout: s.layout,
    appearance: { ...s.appearance },
    ...(s.shared ? { shared: { ...s.shared } } : {}),
  };
}

function sectionForm(
  state: PageEditorState,
  options: {
    replacing: string | null;
    at: number;
    structure: SectionStructure;
    props: Record<string, unknown>;
    errors?: { path: string; message: string }[];
  },
): SectionForm {
  const structure = structureNodes(
    options.structure,
    options.at,
    state.sharedChoices,
  );
  const props = sectionPropNodes(
    options.structure.type,
    options.props,
    options.structure.id,
  );
  const unplaced = placeErrors(
    [...structure, ...props],
    options.errors ?? [],
  ).map((e) => e.message);
  return {
    replacing: options.replacing,
    type: options.structure.type,
    at: options.at,
    structure,
    props,
    unplaced,
  };
}

/** The form GET asks for: `?edit=<id>`, or `?add=<type>&at=<n>`. */
function requestedForm(
  c: Context<AppEnv>,
  state: PageEditorState,
): SectionForm | undefined {
  const document = state.document;
  if (!document || !state.mayUpdate) return undefined;
  const edit = c.req.query("edit");
  if (edit !== undefined) {
    const index = document.sections.findIndex((s) => s.id === edit);
    if (index < 0) return undefined;
    return sectionForm(state, {
      replacing: edit,
      at: index,
      structure: structureOf(document, index),
      props: document.props[edit] ?? {},
    });
  }
  const add = c.req.query("add") ?? "";
  if (!isType(add, state)) return undefined;
  const at = Number(c.req.query("at") ?? document.sections.length);
  return sectionForm(state, {
    replacing: null,
    at: Number.isInteger(at)
      ? Math.max(0, Math.min(at, document.sections.length))
      : document.sections.length,
    structure: {
      id: freshSectionId(document, add),
      type: add,
      variant: "default",
      layout: "default",
      appearance: {},
      ...(add === "shared" ? { shared: { entry: "" } } : {}),
    },
    props: {},
  });
}

/** Media chosen in a form: the stored reference when unchanged, else the library item's. */
function mediaResolver(state: PageEditorState): MediaResolver {
  return (id, kept) => {
    const before = kept as { media_id?: unknown } | null;
    if (before && before.media_id === id) return before;
    const item = state.mediaChoices.find((m) => m.id === id);
    return { media_id: id, url: item?.url ?? "", alt: item?.alt ?? null };
  };
}

function redirectTo(
  c: Context<AppEnv>,
  data: SectionsData,
  done: string,
  focus: string,
  notes: string | null,
) {
  return c.redirect(
    `${base(data.model, data.state)}?lang=${
      encodeURIComponent(data.state.locale)
    }&done=${done}${notes ? `&notes=${notes}` : ""}#section-${
      encodeURIComponent(focus)
    }`,
    303,
  );
}

async function saveSection(
  c: Context<AppEnv>,
  ctx: AdminContext,
  data: SectionsData,
  form: Record<string, unknown>,
  action: string,
) {
  const { state } = data;
  const document = state.document!;
  const replacing = one(form.section) || null;
  const index = replacing === null
    ? -1
    : document.sections.findIndex((s) => s.id === replacing);
  if (replacing !== null && index < 0) {
    data.alert =
      "That section is no longer on the page (removed or renamed since you opened it)";
    return page(data, { status: 409 });
  }
  const type = replacing === null
    ? one(form.type)
    : document.sections[index].type;
  if (!isType(type, state) && replacing === null) {
    data.alert = "Choose a section type this page may hold";
    return page(data, { status: 422 });
  }
  const at = replacing === null
    ? Math.max(0, Math.min(Number(one(form.at)) || 0, document.sections.length))
    : index;
  const before = replacing === null ? {} : document.props[replacing] ?? {};
  const structure = readStructure(type as SectionType, form);
  const resolveMedia = mediaResolver(state);
  if (action.startsWith("add_row:")) {
    // Shows the form again with one more row; nothing is saved.
    const [, list, kind = ""] = action.split(":");
    const props = readSectionProps(type as SectionType, form, {
      resolveMedia,
      before,
      keepBlank: true,
    });
    withRowAdded(props, list, kind);
    data.form = sectionForm(state, { replacing, at, structure, props });
    data.expected = one(form.expected_current_version_id);
    return page(data);
  }
  const props = readSectionProps(type as SectionType, form, {
    resolveMedia,
    before,
  });
  const changed = putSection(document, { replacing, at, structure, props });
  const expected = one(form.expected_current_version_id);
  const saved = await savePageDocument(
    ctx,
    state,
    changed.document,
    expected === "" ? null : expected,
  );
  if (saved.ok) {
    return redirectTo(
      c,
      data,
      replacing === null ? "added" : "saved",
      structure.id,
      saved.notes,
    );
  }
  // What the person typed stays in the form, with each refusal beside its control.
  const shown = readSectionProps(type as SectionType, form, {
    resolveMedia,
    before,
    keepBlank: true,
  });
  data.form = sectionForm(state, {
    replacing,
    at: changed.index,
    structure,
    props: shown,
    errors: saved.errors,
  });
  if (saved.code === "version_conflict") {
    // The form now applies to the newest version: saving again puts this section onto it.
    data.alert =
      "Someone saved this page after you opened it. Your section is below, not saved yet: the list shows the page as it is now; save again to apply your section to it";
    return page(data, { status: 409 });
  }
  data.alert = saved.alert ??
    (saved.code === "field_validation_failed"
      ? "This section needs attention: see the messages beside the fields"
      : refusalMessage(saved.code));
  data.expected = expected;
  return page(data, {
    status: saved.status ??
      (saved.code === "field_validation_failed" ? 422 : 409),
  });
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    const { ctx, data } = await open(c, c.req.query("lang") ?? "");
    data.notice = NOTICES[c.req.query("done") ?? ""];
    data.policyNotes = await takeNotes(ctx, c.req.query("notes"));
    data.form = requestedForm(c, data.state);
    return page(data);
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody({ all: true });
    const { ctx, data } = await open(c, one(form.lang));
    const { state } = data;
    const document = state.document;
    if (!document || !state.mayUpdate) {
      data.alert = document
        ? "Your role may not change this page in this language"
        : "This page's document cannot be read, so its sections cannot be edited here";
      return page(data, { status: document ? 403 : 409 });
    }
    const action = one(form.action);
    if (action === "save" || action.startsWith("add_row:")) {
      return await saveSection(c, ctx, data, form, action);
    }
    const id = one(form.section);
    let changed: PageDocument | null = null;
    let focus = id;
    if (action === "move") {
      changed = moveSection(document, id, Number(one(form.to)));
    }
    if (action === "remove") changed = removeSection(document, id);
    if (action === "duplicate") {
      const copy = duplicateSection(document, id);
      changed = copy?.document ?? null;
      focus = copy?.id ?? id;
    }
    if (!changed) {
      data.alert =
        "That section is no longer on the page: the list shows the page as it is now";
      return page(data, { status: 409 });
    }
    const expected = one(form.expected_current_version_id);
    const saved = await savePageDocument(
      ctx,
      state,
      changed,
      expected === "" ? null : expected,
    );
    if (saved.ok) {
      const done = action === "move"
        ? "moved"
        : action === "remove"
        ? "removed"
        : "duplicated";
      return redirectTo(
        c,
        data,
        done,
        action === "remove" ? "list" : focus,
        saved.notes,
      );
    }
    data.alert = saved.alert ??
      (saved.code === "version_conflict"
        ? "Someone saved this page after you opened it, so nothing was changed: the list shows the page as it is now; try again"
        : [refusalMessage(saved.code), ...saved.errors.map((e) => e.message)]
          .join(": "));
    return page(data, {
      status: saved.status ??
        (saved.code === "field_validation_failed" ? 422 : 409),
    });
  },
};

// --- Rendering ---

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

function controlId(name: string): string {
  return `sf-${name.replace(/[^A-Za-z0-9_-]/g, "-")}`;
}

function Input(
  props: { node: InputNode; data: SectionsData },
) {
  const { node } = props;
  const id = controlId(node.name);
  const described = [
    node.hint ? `${id}-hint` : "",
    node.error ? `${id}-error` : "",
  ].filter((x) => x !== "").join(" ") || undefined;
  const common = {
    id,
    name: node.name,
    "aria-describedby": described,
    "aria-invalid": node.error ? "true" as const : undefined,
    "aria-required": node.required ? "true" as const : undefined,
    "data-preview": node.preview,
  };
  let control;
  switch (node.control) {
    case "textarea":
      control = (
        <textarea {...common} rows={node.name.endsWith("paragraphs") ? 8 : 3}>
          {node.value}
        </textarea>
      );
      break;
    case "number":
      control = (
        <input
          {...common}
          type="number"
          inputMode="numeric"
          step="1"
          min={node.min}
          max={node.max}
          value={node.value}
        />
      );
      break;
    case "checkbox":
      control = (
        <input
          {...common}
          type="checkbox"
          value="on"
          checked={node.value !== ""}
        />
      );
      break;
    case "select":
      control = (
        <select {...common}>
          {(node.options ?? []).map((o) => (
            <option
              key={o.value}
              value={o.value}
              selected={o.value === node.value}
            >
              {o.label}
            </option>
          ))}
        </select>
      );
      break;
    case "media":
      control = (
        <MediaPicker
          id={id}
          name={node.name}
          label={node.label}
          hideLabel
          value={node.value === "" ? null : node.value}
          items={props.data.state.mediaChoices}
          kinds={["image"]}
          required={node.required}
          describedBy={described}
          invalid={node.error !== undefined}
        />
      );
      break;
    default:
      control = (
        <input
          {...common}
          type="text"
          maxLength={node.max}
          value={node.value}
        />
      );
  }
  if (node.control === "checkbox") {
    return (
      <div class="field">
        <label class="check" for={id}>
          {control} {node.label}
        </label>
        {node.error && (
          <p class="field-error" id={`${id}-error`}>{node.error}</p>
        )}
      </div>
    );
  }
  return (
    <div class="field">
      <label for={id}>
        {node.label}
        {node.required && (
          <span class="required-mark" aria-hidden="true">*</span>
        )}
      </label>
      {control}
      {node.hint && <p class="hint" id={`${id}-hint`}>{node.hint}</p>}
      {node.error && <p class="field-error" id={`${id}-error`}>{node.error}</p>}
    </div>
  );
}

function Group(props: { node: GroupNode; data: SectionsData }) {
  const { node } = props;
  const id = controlId(node.name);
  return (
    <fieldset
      class={`section-group${node.list ? " section-list-field" : ""}`}
      aria-describedby={[
        node.hint ? `${id}-hint` : "",
        node.error ? `${id}-error` : "",
      ].filter((x) => x !== "").join(" ") || undefined}
    >
      <legend>{node.label}</legend>
      {node.hint && <p class="hint" id={`${id}-hint`}>{node.hint}</p>}
      {node.error && <p class="field-error" id={`${id}-error`}>{node.error}</p>}
      {node.list && (
        <input
          type="hidden"
          name={`${node.name}.count`}
          value={String(node.list.count)}
        />
      )}
      <Nodes nodes={node.children} data={props.data} />
      {node.removable && (
        <label class="check">
          <input type="checkbox" name={`${node.name}._remove`} value="1" />{" "}
          Remove this {node.label.startsWith("Field") ? "field" : "item"}{" "}
          when saving
        </label>
      )}
      {node.list && (
        <div class="buttons">
          {node.list.adds.map((a) => (
            <button
              key={a.value}
              type="submit"
              class="secondary"
              name="action"
              value={`add_row:${node.name}:${a.value}`}
              formnovalidate
            >
              {a.label}
            </button>
          ))}
        </div>
      )}
    </fieldset>
  );
}

function Nodes(props: { nodes: FormNode[]; data: SectionsData }) {
  return (
    <>
      {props.nodes.map((n) =>
        n.node === "input"
          ? <Input key={n.name} node={n} data={props.data} />
          : <Group key={n.name} node={n} data={props.data} />
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
          <Nodes nodes={form.structure} data={data} />
        </fieldset>
        {form.props.length > 0 && (
          <fieldset class="section-group">
            <legend>Content in {data.state.locale}</legend>
            <Nodes nodes={form.props} data={data} />
          </fieldset>
        )}
        <div class="buttons">
          <button type="submit" name="action" value="save">
            {form.replacing === null ? "Add section" : "Save section"}
          </button>
          <a
            class="button secondary"
            href={`${base(data.model, data.state)}?lang=${data.state.locale}`}
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
  const url = `${base(data.model, data.state)}?lang=${data.state.locale}`;
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

export default function PageSectionsEditor({ data }: PageProps<SectionsData>) {
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
                href={`${base(data.model, state)}?lang=${l}`}
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
