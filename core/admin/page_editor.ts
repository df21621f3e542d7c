// The page editor: one language's page document as a list of sections, each changed through the
// one lifecycle service (so the page parser, shared-section rules and version pins all apply).
import { decide } from "../access/decide.ts";
import { saveEntry } from "../entries/mod.ts";
import { readInstances } from "../entries/store.ts";
import { type PickerItem, pickerItemsWith } from "../media/picker_items.ts";
import type { StoredModel } from "../models/store_rows.ts";
import { isPageField } from "../models/validate_values.ts";
import { mediaReferences } from "../pages/media_check.ts";
import { type PageDocument, parsePageDocument } from "../pages/parse.ts";
import { siteSectionRegistry } from "../templates/registry.ts";
import { SHARED_SECTION_MODEL } from "../pages/shared.ts";
import {
  PAGE_LIMITS,
  SECTION_TYPE_NAMES,
  type SectionType,
  SHARED_SECTION_TYPES,
} from "../pages/vocabulary.ts";
import { refuse } from "../web/errors.ts";
import type { AdminContext } from "./context.ts";
import {
  keepNotes,
  policyLines,
  policyRefusalText,
  underPolicies,
} from "./policy_checks.ts";
import { readableGroup } from "./editor.ts";
import type { SectionStructure } from "./page_sections.ts";
import { entryTitle } from "./titles.ts";

/** One language of the page as the editor shows it. */
export interface PageEditorState {
  groupId: string;
  modelId: string;
  title: string;
  locale: string;
  /** The page's languages (those it has; others are added in the entry editor). */
  locales: string[];
  currentVersionId: string | null;
  /** The stored values of the version, kept as they are on every section save. */
  fields: Record<string, unknown>;
  pageField: string;
  /** The parsed document, or null with the parser's refusal when the stored one is unreadable. */
  document: PageDocument | null;
  documentError: { message: string; path: string } | null;
  mayUpdate: boolean;
  /** Section types that may be added (a shared section holds fewer). */
  addable: SectionType[];
  maxSections: number;
  /** Live shared sections a reference may name (pages only). */
  sharedChoices: { value: string; label: string }[];
  mediaChoices: PickerItem[];
}

/** The model's page field, or 404 when the model holds no page documents. */
export function pageFieldOf(model: StoredModel): string {
  const field = model.fields.find(isPageField);
  if (!field) return refuse(404, "not_found", "This model holds no pages");
  return field.key;
}

const EMPTY_DOCUMENT: PageDocument = { format: 2, sections: [], props: {} };

/** Loads one language of a page for the editor; a language the page lacks is 404. */
export async function loadPageEditor(
  ctx: AdminContext,
  model: StoredModel,
  groupId: string,
  requested: string,
): Promise<PageEditorState> {
  const pageField = pageFieldOf(model);
  const { db } = ctx.services;
  const siteId = ctx.site.id;
  const group = await readableGroup(ctx, model, groupId);
  const instances = await readInstances(db, siteId, group.id);
  const instance = instances.find((i) => i.locale === requested) ??
    (requested === "" ? instances[0] : undefined);
  if (!instance) {
    return refuse(404, "not_found", "The page has no such language");
  }
  const version = instance.current_version_id
    ? await db.selectFrom("entry_versions").select("fields")
      .where("site_id", "=", siteId)
      .where("id", "=", instance.current_version_id).executeTakeFirst()
    : undefined;
  const fields = (version?.fields ?? {}) as Record<string, unknown>;
  const stored = fields[pageField];
  const parsed = stored === undefined || stored === null
    ? { ok: true as const, value: EMPTY_DOCUMENT }
    : parsePageDocument(stored, {
      registry: await siteSectionRegistry(db, siteId),
    });
  const isShared = model.slug === SHARED_SECTION_MODEL;
  const document = parsed.ok ? parsed.value : null;
  return {
    groupId: group.id,
    modelId: model.id,
    title: entryTitle(model, fields, instance.slug),
    locale: instance.locale,
    locales: instances.map((i) => i.locale),
    currentVersionId: instance.current_version_id,
    fields,
    pageField,
    document,
    documentError: parsed.ok
      ? null
      : { message: parsed.error.message, path: parsed.error.detail.path },
    mayUpdate: group.trashed_at === null && decide(ctx.authority, {
      action: "update",
      model: model.id,
      owner: group.created_by,
      languages: [instance.locale],
    }).ok,
    addable: isShared
      ? [...SHARED_SECTION_TYPES]
      : SECTION_TYPE_NAMES.filter((t) => t !== "custom"),
    maxSections: isShared ? PAGE_LIMITS.sharedSections : PAGE_LIMITS.sections,
    sharedChoices: isShared ? [] : await sharedChoices(ctx, instance.locale),
    mediaChoices: await mediaChoicesOf(ctx, instance.locale, document),
  };
}

/**
 * What the media pickers offer: the library's newest images and those the document names. A
 * reference to a file outside the library (a static picture) is offered as it is, so saving a
 * section never drops it unasked.
 */
async function mediaChoicesOf(
  ctx: AdminContext,
  locale: string,
  document: PageDocument | null,
): Promise<PickerItem[]> {
  const refs = document ? mediaReferences(document) : [];
  const items = await pickerItemsWith(
    {
      db: ctx.services.db,
      siteId: ctx.site.id,
      publicUrl: ctx.services.config.publicUrl,
    },
    { language: locale, chosen: refs.map((r) => r.media_id) },
  );
  const known = new Set(items.map((i) => i.id));
  for (const ref of refs) {
    if (known.has(ref.media_id)) continue;
    known.add(ref.media_id);
    items.push({
      id: ref.media_id,
      url: ref.url,
      file_name: ref.url.split("/").at(-1) || ref.media_id,
      kind: "image",
      alt: null,
    });
  }
  return items;
}

/** Shared sections a page may reference: items of `shared_section` not in Trash, newest first. */
export async function sharedChoices(
  ctx: AdminContext,
  locale: string,
): Promise<{ value: string; label: string }[]> {
  const { db } = ctx.services;
  const model = await db.selectFrom("models").select("id")
    .where("site_id", "=", ctx.site.id)
    .where("slug", "=", SHARED_SECTION_MODEL).executeTakeFirst();
  if (!model) return [];
  const rows = await db.selectFrom("entries as e")
    .innerJoin(
      "entry_groups as g",
      (j) =>
        j.onRef("g.site_id", "=", "e.site_id").onRef("g.id", "=", "e.group_id"),
    )
    .select(["e.group_id", "e.locale", "e.slug", "e.list_title"])
    .where("e.site_id", "=", ctx.site.id)
    .where("g.model_id", "=", model.id)
    .where("g.trashed_at", "is", null)
    .orderBy("g.created_at", "desc").limit(500).execute();
  const byGroup = new Map<string, { value: string; label: string }>();
  for (const r of rows) {
    const label = r.list_title ?? r.slug;
    // The label in the page's language when the shared section has it.
    if (!byGroup.has(r.group_id) || r.locale === locale) {
      byGroup.set(r.group_id, { value: r.group_id, label });
    }
  }
  return [...byGroup.values()];
}

// --- Changes to the document; each answers a raw document the save then judges ---

function clone(document: PageDocument): PageDocument {
  return structuredClone(document);
}

function formatOf(sections: PageDocument["sections"]): 2 | 3 {
  return sections.some((s) => s.component !== null) ? 3 : 2;
}

/** An id not yet used in the document, from `base` (`faq`, `faq-2`, …). */
export function freshSectionId(document: PageDocument, base: string): string {
  const stem = base.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 56) || "section";
  const used = new Set(document.sections.map((s) => s.id));
  if (!used.has(stem)) return stem;
  for (let n = 2;; n++) {
    if (!used.has(`${stem}-${n}`)) return `${stem}-${n}`;
  }
}

/** Moves section `id` to position `to` (0-based, clamped). */
export function moveSection(
  document: PageDocument,
  id: string,
  to: number,
): PageDocument | null {
  const doc = clone(document);
  const from = doc.sections.findIndex((s) => s.id === id);
  if (from < 0 || !Number.isInteger(to)) return null;
  const [section] = doc.sections.splice(from, 1);
  doc.sections.splice(
    Math.max(0, Math.min(to, doc.sections.length)),
    0,
    section,
  );
  return doc;
}

/** Copies section `id` (structure and props) right after it, under a fresh id. */
export function duplicateSection(
  document: PageDocument,
  id: string,
): { document: PageDocument; id: string } | null {
  const doc = clone(document);
  const at = doc.sections.findIndex((s) => s.id === id);
  if (at < 0) return null;
  const copy = { ...structuredClone(doc.sections[at]) };
  copy.id = freshSectionId(doc, `${id}-copy`);
  doc.sections.splice(at + 1, 0, copy);
  doc.props[copy.id] = structuredClone(doc.props[id]);
  return { document: doc, id: copy.id };
}

/** Removes section `id` and its props. */
export function removeSection(
  document: PageDocument,
  id: string,
): PageDocument | null {
  const doc = clone(document);
  const at = doc.sections.findIndex((s) => s.id === id);
  if (at < 0) return null;
  doc.sections.splice(at, 1);
  delete doc.props[id];
  doc.format = formatOf(doc.sections);
  return doc;
}

/**
 * Writes one section: replaces `replacing` (keeping its component and definition) or, when
 * null, inserts a new one at `at`. The id may change; its props move with it.
 */
export function putSection(
  document: PageDocument,
  change: {
    replacing: string | null;
    at: number;
    structure: SectionStructure;
    props: Record<string, unknown>;
  },
): { document: PageDocument; index: number } {
  const doc = clone(document);
  const { structure } = change;
  const index = change.replacing === null
    ? Math.max(0, Math.min(change.at, doc.sections.length))
    : doc.sections.findIndex((s) => s.id === change.replacing);
  const before = change.replacing === null ? null : doc.sections[index];
  const section: PageDocument["sections"][number] = {
    id: structure.id,
    type: structure.type,
    variant: structure.variant,
    layout: structure.layout,
    component: before?.component ?? null,
  };
  if (Object.keys(structure.appearance).length > 0) {
    section.appearance = { ...structure.appearance };
  }
  if (before?.definition) section.definition = before.definition;
  if (structure.shared) section.shared = { ...structure.shared };
  if (before) {
    doc.sections[index] = section;
    delete doc.props[before.id];
  } else {
    doc.sections.splice(index, 0, section);
  }
  // A changed id that another section already holds is left for the parser to refuse by path.
  doc.props[structure.id] = change.props;
  doc.format = formatOf(doc.sections);
  return { document: doc, index };
}

/** What a refused section save tells the page: messages by JSON path of the document. */
export type PageSaveOutcome =
  | {
    ok: true;
    currentVersionId: string | null;
    /** What plugin policies said, kept for the next page (`notes` in its address). */
    notes: string | null;
  }
  | {
    ok: false;
    code: string;
    errors: { path: string; message: string }[];
    /** The words of a plugin policy's refusal. */
    alert?: string;
    status?: number;
  };

/** Saves the document as the language's next version, pinned to the version the page showed. */
export async function savePageDocument(
  ctx: AdminContext,
  state: PageEditorState,
  document: PageDocument,
  expectedVersionId: string | null,
): Promise<PageSaveOutcome> {
  const fields = { ...state.fields, [state.pageField]: document };
  const checked = await underPolicies(ctx, {
    kind: "save",
    groupId: state.groupId,
    modelId: state.modelId,
    locale: state.locale,
    values: { pinnedVersionId: expectedVersionId, after: fields },
  }, (lifecycle, transform) =>
    saveEntry(lifecycle, {
      group_id: state.groupId,
      locale: state.locale,
      fields: { ...fields, ...transform },
      expected_current_version_id: expectedVersionId,
    }));
  if (!checked.ok) {
    return {
      ok: false,
      code: checked.code,
      errors: [],
      alert: policyRefusalText(checked),
      status: checked.status,
    };
  }
  const outcome = checked.outcome;
  if (outcome.ok) {
    const mine = outcome.instances.find((i) => i.locale === state.locale);
    return {
      ok: true,
      currentVersionId: mine?.current_version_id ?? null,
      notes: await keepNotes(ctx, policyLines(checked.results)),
    };
  }
  const prefix = state.pageField;
  return {
    ok: false,
    code: outcome.code,
    errors: (outcome.errors ?? [])
      .filter((p) =>
        p.path === prefix || p.path.startsWith(`${prefix}.`) ||
        p.path.startsWith(`${prefix}[`)
      )
      .map((p) => ({
        path: `$${p.path.slice(prefix.length)}`,
        message: p.message.replace(/^Page "[^"]*": /, ""),
      })),
  };
}
