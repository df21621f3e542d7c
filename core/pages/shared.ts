// Shared sections (page contract 5): the reserved `shared_section` model, the refusals at save
// and publish, and delivery's expansion of references into the shared section's published
// sections (spec 3 parts 2.2 and 7).
import { isId } from "../entries/store.ts";
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import type { ValueProblem } from "../models/validate_values.ts";
import {
  type PageDocument,
  type PageError,
  parsePageDocument,
  pathOf,
} from "./parse.ts";
import {
  PAGE_CONTRACT,
  PAGE_LIMITS,
  SHARED_SECTION_TYPES,
} from "./vocabulary.ts";

/** Slug of the reserved model whose items are shared sections. */
export const SHARED_SECTION_MODEL = "shared_section";

/** Refusal codes of shared sections at save and publish. */
export type SharedSectionCode =
  | "shared_section_nested"
  | "shared_section_type_unsupported"
  | "shared_section_too_many"
  | "shared_section_not_live"
  | "shared_section_page_limit"
  | "shared_section_not_routable";

interface Target {
  group_id: string;
  model_slug: string;
  trashed: boolean;
  /** Sections of the version the rule reads (current on save, published on publish); null if none. */
  count: number | null;
}

/**
 * Checks the shared-section rules of one language's values of a model holding `slides`: a shared
 * section's own document (at most 6 sections, no references, supported types), or a page's
 * references (each names a live item of `shared_section`; expanded, the page stays within its
 * section limit). Publication reads the referenced section's published version in `locale`.
 */
export async function checkSharedSections(
  db: Db,
  request: {
    siteId: string;
    modelSlug: string;
    values: Record<string, unknown>;
    mode: "save" | "publish";
    locale: string;
  },
): Promise<ValueProblem[]> {
  const parsed = parsePageDocument(request.values.slides ?? null);
  if (!parsed.ok) return [];
  const doc = parsed.value;
  const problem = (
    path: string,
    code: SharedSectionCode,
    message: string,
  ): ValueProblem[] => [{
    path: `slides${path.slice(1)}`,
    code,
    message,
    locale: request.locale,
  }];
  if (request.modelSlug === SHARED_SECTION_MODEL) {
    if (doc.sections.length > PAGE_LIMITS.sharedSections) {
      return problem(
        "$.sections",
        "shared_section_too_many",
        `A shared section holds at most ${PAGE_LIMITS.sharedSections} sections`,
      );
    }
    for (const [i, s] of doc.sections.entries()) {
      const at = pathOf(pathOf("$.sections", i), "type");
      if (s.type === "shared") {
        return problem(
          at,
          "shared_section_nested",
          "A shared section cannot hold another shared section",
        );
      }
      if (!SHARED_SECTION_TYPES.includes(s.type)) {
        return problem(
          at,
          "shared_section_type_unsupported",
          `A shared section cannot hold a "${s.type}" section`,
        );
      }
    }
    return [];
  }
  const refs = doc.sections.flatMap((s, i) => s.shared ? [{ i, s }] : []);
  if (refs.length === 0) return [];
  const targets = await loadTargets(
    db,
    request.siteId,
    refs.map((r) => r.s.shared!.entry),
    request.mode,
    request.locale,
  );
  let expanded = doc.sections.length - refs.length;
  for (const { i, s } of refs) {
    const at = pathOf(pathOf(pathOf("$.sections", i), "shared"), "entry");
    const target = targets.get(s.shared!.entry);
    if (target && target.model_slug !== SHARED_SECTION_MODEL) {
      return problem(
        at,
        "shared_section_not_routable",
        `"${
          s.shared!.entry
        }" is a ${target.model_slug} item, not a shared section`,
      );
    }
    if (!target || target.trashed || target.count === null) {
      return problem(
        at,
        "shared_section_not_live",
        request.mode === "publish"
          ? `Shared section "${
            s.shared!.entry
          }" is not published in "${request.locale}"`
          : `Shared section "${s.shared!.entry}" does not exist`,
      );
    }
    expanded += target.count;
  }
  if (expanded > PAGE_LIMITS.sections) {
    return problem(
      "$.sections",
      "shared_section_page_limit",
      `With its shared sections expanded this page would hold ${expanded} sections; at most ${PAGE_LIMITS.sections}`,
    );
  }
  return [];
}

async function loadTargets(
  db: Db,
  siteId: string,
  ids: string[],
  mode: "save" | "publish",
  locale: string,
): Promise<Map<string, Target>> {
  const usable = ids.filter((id) => isId(id));
  if (usable.length === 0) return new Map();
  // On save any version of the item counts; publication needs a published version in the
  // page's language (as delivery resolves it through the locale policy).
  const rows = mode === "publish"
    ? await sql<
      {
        group_id: string;
        model_slug: string;
        trashed: boolean;
        slides: unknown;
      }
    >`
      select g.id as group_id, m.slug as model_slug, g.trashed_at is not null as trashed,
        p.fields -> 'slides' as slides
      from entry_groups g join models m on m.id::text = g.model_id
      left join public_items p on p.site_id = g.site_id and p.group_id = g.id
        and p.requested_locale = ${locale}
      where g.site_id = ${siteId} and g.id in (${sql.join(usable)})
    `.execute(db)
    : await sql<
      {
        group_id: string;
        model_slug: string;
        trashed: boolean;
        slides: unknown;
      }
    >`
      select g.id as group_id, m.slug as model_slug, g.trashed_at is not null as trashed,
        (select v.fields -> 'slides' from entries e
          join entry_versions v on v.site_id = e.site_id and v.id = e.current_version_id
          where e.site_id = g.site_id and e.group_id = g.id
          order by (e.locale = ${locale}) desc, e.locale limit 1) as slides
      from entry_groups g join models m on m.id::text = g.model_id
      where g.site_id = ${siteId} and g.id in (${sql.join(usable)})
    `.execute(db);
  return new Map(rows.rows.map((r) => {
    const doc = r.slides === null || r.slides === undefined
      ? null
      : parsePageDocument(r.slides);
    return [r.group_id, {
      group_id: r.group_id,
      model_slug: r.model_slug,
      trashed: r.trashed,
      count: doc === null ? null : doc.ok ? doc.value.sections.length : 0,
    }];
  }));
}

/** A page document as delivery serves it. */
export interface DeliveredPage {
  /** The expanded, canonical document; null when it cannot be served. */
  document: PageDocument | null;
  /** The lowest contract able to read it; null when it cannot be served. */
  required: number | null;
  error?: PageError;
  /** Ids of the shared sections it embeds (cache tags `instance:<id>`). */
  shared: string[];
}

/** Key of a delivered page: the item and the language it is served in. */
export function deliveredKey(groupId: string, locale: string): string {
  return `${groupId}\n${locale}`;
}

/**
 * Parses the page documents of published rows and expands their shared sections into the
 * shared section's published sections in the page's language (ids `<reference id>.<n>`).
 */
export async function deliverPages(
  db: Db,
  siteId: string,
  rows: readonly {
    group_id: string;
    served_locale: string;
    fields: Record<string, unknown>;
  }[],
): Promise<Map<string, DeliveredPage>> {
  const out = new Map<string, DeliveredPage>();
  const parsed = rows.map((row) => ({
    row,
    result: parsePageDocument(row.fields.slides ?? null),
  }));
  const wanted = new Map<string, Set<string>>();
  for (const { row, result } of parsed) {
    if (!result.ok) continue;
    for (const s of result.value.sections) {
      if (!s.shared) continue;
      const set = wanted.get(row.served_locale) ?? new Set();
      set.add(s.shared.entry);
      wanted.set(row.served_locale, set);
    }
  }
  const sharedDocs = await loadShared(db, siteId, wanted);
  for (const { row, result } of parsed) {
    const key = deliveredKey(row.group_id, row.served_locale);
    if (!result.ok) {
      out.set(key, {
        document: null,
        required: null,
        error: result.error,
        shared: [],
      });
      continue;
    }
    out.set(key, expand(result.value, row.served_locale, sharedDocs));
  }
  return out;
}

function expand(
  doc: PageDocument,
  locale: string,
  sharedDocs: Map<string, PageDocument>,
): DeliveredPage {
  const shared: string[] = [];
  if (!doc.sections.some((s) => s.shared)) {
    const again = parsePageDocument(doc, { purpose: "deliver" });
    return again.ok
      ? { document: again.value, required: again.contract, shared }
      : { document: null, required: null, error: again.error, shared };
  }
  const sections: PageDocument["sections"] = [];
  const props: PageDocument["props"] = {};
  for (const [i, s] of doc.sections.entries()) {
    if (!s.shared) {
      sections.push(s);
      props[s.id] = doc.props[s.id];
      continue;
    }
    const source = sharedDocs.get(`${locale}\n${s.shared.entry}`);
    if (!source) {
      return {
        document: null,
        required: null,
        error: {
          code: "shared_section_unexpanded",
          message:
            `Shared section "${s.shared.entry}" is not published in "${locale}"`,
          detail: { path: `$.sections[${i}]`, section: s.id },
        },
        shared,
      };
    }
    shared.push(s.shared.entry);
    source.sections.forEach((inner, n) => {
      const id = `${s.id}.${n}`;
      sections.push({ ...inner, id });
      props[id] = source.props[inner.id];
    });
  }
  const expanded = parsePageDocument({ format: doc.format, sections, props }, {
    purpose: "deliver",
  });
  if (!expanded.ok) {
    return { document: null, required: null, error: expanded.error, shared };
  }
  return {
    document: expanded.value,
    required: Math.max(expanded.contract, PAGE_CONTRACT.sharedSections),
    shared,
  };
}

async function loadShared(
  db: Db,
  siteId: string,
  wanted: Map<string, Set<string>>,
): Promise<Map<string, PageDocument>> {
  const out = new Map<string, PageDocument>();
  for (const [locale, ids] of wanted) {
    const usable = [...ids].filter((id) => isId(id));
    if (usable.length === 0) continue;
    const rows = await sql<{ group_id: string; slides: unknown }>`
      select p.group_id, p.fields -> 'slides' as slides
      from public_items p join models m on m.id::text = p.model_id
      where p.site_id = ${siteId} and p.requested_locale = ${locale}
        and m.slug = ${SHARED_SECTION_MODEL} and p.group_id in (${
      sql.join(usable)
    })
    `.execute(db);
    for (const row of rows.rows) {
      const parsed = parsePageDocument(row.slides ?? null);
      // A shared section that breaks its own rules is not served inside a page.
      if (
        parsed.ok &&
        parsed.value.sections.length <= PAGE_LIMITS.sharedSections &&
        parsed.value.sections.every((s) =>
          SHARED_SECTION_TYPES.includes(s.type)
        )
      ) {
        out.set(`${locale}\n${row.group_id}`, parsed.value);
      }
    }
  }
  return out;
}
