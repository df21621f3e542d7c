// What the entry editor reads: the entry in one language, its languages' states, workflow, relation choices.
import { singularOf } from "./labels.ts";
import { decide, readableFields, readReach } from "../access/decide.ts";
import { readWorkflow, type WorkflowBlock } from "../entries/workflow.ts";
import { pendingAddresses } from "../pages/pending_address.ts";
import { listAssignees, readAssignment } from "../entries/review.ts";
import { readReviewStage } from "../entries/review_state.ts";
import {
  type GroupRow,
  isId,
  readGroup,
  readInstances,
} from "../entries/store.ts";
import { listModels } from "../models/model_reads.ts";
import type { StoredModel } from "../models/store_rows.ts";
import { getSettings } from "../sites/settings.ts";
import { localeChain } from "../sites/locale_chain.ts";
import { refuse } from "../web/errors.ts";
import type { AdminContext } from "./context.ts";
import {
  type FieldControl,
  fieldControls,
  type RawValues,
  rawValues,
  shownControls,
} from "./entry_form.ts";
import {
  entryTitle,
  likeContaining,
  listTitleHolds,
  titleFieldOf,
} from "./titles.ts";
import { type PickerItem, pickerItemsWith } from "../media/picker_items.ts";

/** How one site language stands for the entry. */
export interface LanguageState {
  code: string;
  /** `translated`: the entry has it; `fallback`: readers get `from`; `missing`: readers get nothing. */
  state: "translated" | "fallback" | "missing";
  from?: string;
  published: boolean;
}

/** A choice of a relation picker. */
export interface RelationChoice {
  value: string;
  label: string;
}

/** Everything the editor page shows about one entry language. */
export interface EditorState {
  groupId: string;
  title: string;
  locale: string;
  /** False when the entry lacks this language: saving adds it. */
  exists: boolean;
  /** When the language is missing: the language whose values the form starts from. */
  startedFrom: string | null;
  slug: string;
  /**
   * A live page whose new address waits for publication: `slug` is the waiting one, this the
   * address readers get until then.
   */
  liveSlug: string | null;
  trashed: boolean;
  revision: number;
  currentVersionId: string | null;
  publishedVersionId: string | null;
  controls: FieldControl[];
  raw: RawValues;
  languages: LanguageState[];
  /** What the person may do now in this language (publish, unpublish, trash, restore, review moves). */
  transitions: string[];
  mayUpdate: boolean;
  stage: string;
  assigneeId: string | null;
  assignees: { id: string; label: string }[];
  mayAssign: boolean;
  relationChoices: Record<string, RelationChoice[]>;
  /** What the media pickers offer: the newest files and those the fields hold (empty without media fields). */
  mediaChoices: PickerItem[];
  /**
   * The language whose alt text a single image field's picker shows and edits on the chosen
   * image, or null when the person may not change library items (`media:update`).
   */
  altLanguage: string | null;
  /** The model's slug source field, for the slug auto-fill. */
  titleKey: string | null;
}

/** The group, readable by the person, or 404. */
export async function readableGroup(
  ctx: AdminContext,
  model: StoredModel,
  groupId: string,
): Promise<GroupRow> {
  const group = await readGroup(ctx.services.db, ctx.site.id, groupId);
  const reach = readReach(ctx.authority, model.id);
  if (
    !group || group.model_id !== model.id || reach === "none" ||
    (reach === "own" && group.created_by !== ctx.user.id)
  ) {
    return refuse(404, "not_found", "No such entry you can open here");
  }
  return group;
}

/** The language whose alt texts the person may edit from a picker, or null (no `media:update`). */
export function altLanguageOf(
  ctx: AdminContext,
  locale: string,
): string | null {
  return decide(ctx.authority, { action: "media:update" }).ok ? locale : null;
}

/**
 * The media pickers' items when the model has media fields: the newest files and every file
 * the form holds now (`raw`), so a value chosen long ago or typed before a refusal still shows.
 */
export async function mediaChoices(
  ctx: AdminContext,
  controls: readonly FieldControl[],
  raw: RawValues,
  language: string,
): Promise<PickerItem[]> {
  const media = shownControls(controls, raw).filter((c) =>
    c.control.type === "media"
  );
  if (media.length === 0) return [];
  const chosen = media.flatMap(({ value }) =>
    Array.isArray(value) ? value : value === "" ? [] : [value]
  );
  return await pickerItemsWith(
    {
      db: ctx.services.db,
      siteId: ctx.site.id,
      publicUrl: ctx.services.config.publicUrl,
    },
    { language, chosen },
  );
}

/** How many entries a relation picker lists before the person searches. */
const RELATION_CHOICES = 200;

/** What {@link relationChoicesOf} narrows the list by. */
export interface RelationChoiceQuery {
  /** Words in the title or slug; absent lists the newest. */
  q?: string;
  /** Values the field holds now: always offered, however old. */
  include?: readonly string[];
  /** Most choices per field. */
  limit?: number;
}

/**
 * One relation field's choices: readable entries of its target models (newest first, or those
 * whose title or slug holds `q`), plus every entry the field holds now.
 */
export async function relationChoicesOf(
  ctx: AdminContext,
  control: FieldControl,
  query: RelationChoiceQuery = {},
): Promise<RelationChoice[]> {
  const { db, clock } = ctx.services;
  const models = await listModels({ db, clock, siteId: ctx.site.id });
  const list: RelationChoice[] = [];
  const seen = new Set<string>();
  const included = (query.include ?? []).map((v) => v.split(":").at(-1)!)
    .filter((v) => isId(v));
  for (const targetId of control.targets) {
    const target = models.find((m) => m.id === targetId);
    if (!target) continue;
    const reach = readReach(ctx.authority, target.id);
    if (reach === "none") continue;
    const titleKey = titleFieldOf(target)?.key ?? null;
    const readable = new Set(
      readableFields(
        ctx.authority,
        target.id,
        target.fields.map((f) => f.key),
      ),
    );
    const base = () => {
      let q = db.selectFrom("entry_groups as g")
        .innerJoin("entries as e", "e.id", "g.primary_entry_id")
        .leftJoin("entry_versions as v", "v.id", "e.current_version_id")
        .select(["g.id", "e.slug", "v.fields"])
        .where("g.site_id", "=", ctx.site.id)
        .where("g.model_id", "=", target.id)
        .where("g.trashed_at", "is", null);
      if (reach === "own") q = q.where("g.created_by", "=", ctx.user.id);
      return q;
    };
    let listed = base();
    if (query.q) {
      const words = query.q;
      const pattern = likeContaining(words);
      listed = listed.where((eb) =>
        titleKey && readable.has(titleKey)
          ? eb.or([eb("e.slug", "ilike", pattern), listTitleHolds(words)])
          : eb("e.slug", "ilike", pattern)
      );
    }
    const rows = [
      ...await listed.orderBy("g.created_at", "desc")
        .limit(query.limit ?? RELATION_CHOICES).execute(),
      ...(included.length > 0
        ? await base().where("g.id", "in", included).execute()
        : []),
    ];
    for (const row of rows) {
      const value = control.targets.length > 1
        ? `${target.id}:${row.id}`
        : row.id;
      if (seen.has(value)) continue;
      seen.add(value);
      const values = Object.fromEntries(
        Object.entries((row.fields ?? {}) as Record<string, unknown>)
          .filter(([k]) => readable.has(k)),
      );
      list.push({
        value,
        label: control.targets.length > 1
          ? `${entryTitle(target, values, row.slug)} (${target.name})`
          : entryTitle(target, values, row.slug),
      });
    }
  }
  return list.sort((a, b) => a.label.localeCompare(b.label));
}

/** Every relation field's choices (component items' too), with the values the form holds now. */
export async function relationChoices(
  ctx: AdminContext,
  controls: readonly FieldControl[],
  raw: RawValues = {},
): Promise<Record<string, RelationChoice[]>> {
  const choices: Record<string, RelationChoice[]> = {};
  for (const { control, value } of shownControls(controls, raw)) {
    if (control.type !== "relation") continue;
    choices[control.key] = await relationChoicesOf(ctx, control, {
      include: Array.isArray(value) ? value : value === "" ? [] : [value],
    });
  }
  return choices;
}

function transitionsOf(block: WorkflowBlock, locale: string): string[] {
  const own = block.locales[locale]?.transitions ?? [];
  const whole = block.transitions.filter((t) =>
    t.kind === "trash" || t.kind === "restore" || t.kind === "submit" ||
    t.kind === "approve" || t.kind === "request_changes" ||
    t.kind === "withdraw"
  );
  return [...new Set([...own, ...whole].map((t) => t.kind))];
}

/** Loads the editor of one entry language for the person. */
export async function loadEditor(
  ctx: AdminContext,
  model: StoredModel,
  groupId: string,
  requested: string,
): Promise<EditorState> {
  const { db } = ctx.services;
  const siteId = ctx.site.id;
  const group = await readableGroup(ctx, model, groupId);
  const instances = await readInstances(db, siteId, group.id);
  const locale = ctx.site.languages.includes(requested)
    ? requested
    : instances[0]?.locale ?? ctx.site.defaultLanguage;
  const policy = await getSettings({ db, siteId }, "language-fallback");
  const languages: LanguageState[] = ctx.site.languages.map((code) => {
    const own = instances.find((i) => i.locale === code);
    if (own) {
      return {
        code,
        state: "translated",
        published: own.published_version_id !== null,
      };
    }
    const from = localeChain(policy.document, code, ctx.site.defaultLanguage)
      .slice(1).find((l) => instances.some((i) => i.locale === l));
    return from
      ? { code, state: "fallback", from, published: false }
      : { code, state: "missing", published: false };
  });
  const instance = instances.find((i) => i.locale === locale);
  const waiting = instance
    ? (await pendingAddresses(db, siteId, [instance.id])).get(instance.id)
      ?.address ?? null
    : null;
  const startedFrom = instance
    ? null
    : languages.find((l) => l.code === locale)?.from ?? instances[0]?.locale ??
      null;
  const source = instance ??
    instances.find((i) => i.locale === startedFrom) ?? null;
  const version = source?.current_version_id
    ? await db.selectFrom("entry_versions").select("fields")
      .where("site_id", "=", siteId).where("id", "=", source.current_version_id)
      .executeTakeFirst()
    : undefined;
  const controls = fieldControls(model, ctx.authority);
  const stored = (version?.fields ?? {}) as Record<string, unknown>;
  const raw = rawValues(controls, stored);
  const workflow = await readWorkflow(
    { db, siteId, actor: ctx.actor },
    { group_id: group.id },
  );
  if (!workflow.ok) {
    return refuse(404, "not_found", "No such entry you can open here");
  }
  const mayAssign = decide(ctx.authority, {
    action: "entries.assign",
    model: model.id,
    owner: group.created_by,
  }).ok;
  const assignees = mayAssign
    ? (await listAssignees({ db, siteId }, group.id) ?? []).map((a) => ({
      id: a.user_id,
      label: `${a.display_name} (${a.email})`,
    }))
    : [];
  const readable = Object.fromEntries(
    controls.map((c) => [c.key, stored[c.key]]),
  );
  return {
    groupId: group.id,
    title: entryTitle(model, readable, instance?.slug ?? source?.slug ?? ""),
    locale,
    exists: instance !== undefined,
    startedFrom,
    slug: waiting ?? instance?.slug ?? source?.slug ?? "",
    liveSlug: waiting !== null && waiting !== instance?.slug
      ? instance?.slug ?? null
      : null,
    trashed: group.trashed_at !== null,
    revision: group.revision,
    currentVersionId: instance?.current_version_id ?? null,
    publishedVersionId: instance?.published_version_id ?? null,
    controls,
    raw,
    languages,
    transitions: transitionsOf(workflow.workflow, locale),
    mayUpdate: decide(ctx.authority, {
      action: "update",
      model: model.id,
      owner: group.created_by,
      languages: [locale],
    }).ok,
    stage: await readReviewStage(db, siteId, group.id),
    assigneeId: await readAssignment(db, siteId, group.id),
    assignees,
    mayAssign,
    relationChoices: await relationChoices(ctx, controls, raw),
    mediaChoices: await mediaChoices(ctx, controls, raw, locale),
    altLanguage: altLanguageOf(ctx, locale),
    titleKey: titleFieldOf(model)?.key ?? null,
  };
}

/** The editor of an entry not created yet, in `locale`. */
export async function newEditor(
  ctx: AdminContext,
  model: StoredModel,
  locale: string,
): Promise<EditorState> {
  const controls = fieldControls(model, ctx.authority);
  const raw = rawValues(controls, {});
  return {
    groupId: "",
    title: `New ${singularOf(model.name)}`,
    locale,
    exists: false,
    startedFrom: null,
    slug: "",
    liveSlug: null,
    trashed: false,
    revision: 0,
    currentVersionId: null,
    publishedVersionId: null,
    controls,
    raw,
    languages: [],
    transitions: [],
    mayUpdate: true,
    stage: "draft",
    assigneeId: null,
    assignees: [],
    mayAssign: false,
    relationChoices: await relationChoices(ctx, controls),
    mediaChoices: await mediaChoices(ctx, controls, raw, locale),
    altLanguage: altLanguageOf(ctx, locale),
    titleKey: titleFieldOf(model)?.key ?? null,
  };
}
