// GET/POST /admin/content/{model}/{id}/sections?lang=..: the page editor. A page's sections as a
// list that can be added, reordered, duplicated and removed, and a form per section type; every
// change is a new draft version through the lifecycle service. Works without script; the
// PageSections island adds drag reordering and a live structure preview.
import type { Context } from "hono";
import { type AdminContext } from "../../../../../core/admin/context.ts";
import { refusalMessage } from "../../../../../core/admin/messages.ts";
import {
  keepNotes,
  policyLines,
  policyRefusalText,
  takeNotes,
} from "../../../../../core/admin/policy_checks.ts";
import { loadEditor } from "../../../../../core/admin/editor.ts";
import { runCheckedEditorAction } from "../../../../../core/admin/editor_save.ts";
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
  sectionPropNodes,
  type SectionStructure,
  structureNodes,
} from "../../../../../core/admin/page_sections.ts";
import {
  type MediaResolver,
  placeErrors,
  readSectionProps,
  readStructure,
  withRowAdded,
} from "../../../../../core/admin/page_sections_read.ts";
import { one } from "../../../../../core/admin/form_values.ts";
import { requireSignedIn } from "../../../../../core/auth/session_middleware.ts";
import type { PageDocument } from "../../../../../core/pages/parse.ts";
import {
  SECTION_TYPE_NAMES,
  type SectionType,
} from "../../../../../core/pages/vocabulary.ts";
import type { AppEnv } from "../../../../../core/web/env.ts";
import { page, type PageProps } from "../../../../../core/web/manifest.ts";
import { openAdminPage } from "../../../_shell.tsx";
import {
  PageSectionsView,
  type SectionForm,
  type SectionsData,
  sectionsUrl,
} from "../../../_page_sections.tsx";

export const middleware = requireSignedIn;

const NOTICES: Record<string, string> = {
  saved: "Section saved as a draft.",
  added: "Section added to the draft.",
  moved: "Section moved.",
  duplicated: "Section duplicated: the copy follows the original.",
  removed:
    "Section removed from the draft. Older versions keep it (the entry's Versions page).",
  published: "Published: readers get the sections in this order now.",
};

const base = sectionsUrl;

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

/**
 * Publishes the page language as the list shows it: pinned to the version the page editor
 * showed, so a save made since by someone else is refused instead of published unseen.
 */
async function publish(
  c: Context<AppEnv>,
  ctx: AdminContext,
  data: SectionsData,
  form: Record<string, unknown>,
) {
  const model = await modelBySlug(ctx, c.req.param("model")!);
  const editor = await loadEditor(
    ctx,
    model,
    data.state.groupId,
    data.state.locale,
  );
  const checked = await runCheckedEditorAction(ctx, {
    groupId: data.state.groupId,
    modelId: model.id,
    action: "publish",
    form: {
      lang: data.state.locale,
      revision: String(editor.revision),
      expected_current_version_id: one(form.expected_current_version_id),
    },
  });
  if (!checked.ok) {
    data.alert = policyRefusalText(checked);
    return page(data, { status: checked.status });
  }
  if (!checked.outcome.ok) {
    data.alert = checked.outcome.code === "version_conflict"
      ? "Someone saved this page after you opened it, so it was not published: the list shows the page as it is now; check it and publish again"
      : refusalMessage(checked.outcome.code);
    return page(data, {
      status: checked.outcome.code === "field_validation_failed" ? 422 : 409,
    });
  }
  const notes = await keepNotes(ctx, policyLines(checked.results));
  return redirectTo(c, data, "published", "list", notes);
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
    if (one(form.action) === "publish") {
      return await publish(c, ctx, data, form);
    }
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

export default function PageSectionsEditor({ data }: PageProps<SectionsData>) {
  return <PageSectionsView data={data} />;
}
