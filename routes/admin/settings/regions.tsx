// GET/POST /admin/settings/regions: what each region of the active template holds, in order (the
// `regions` of the Site Chrome settings document). Every change is one small form, so the page
// works without JavaScript.
import type { Context } from "hono";
import { adminContext } from "../../../core/admin/context.ts";
import { sharedChoices } from "../../../core/admin/page_editor.ts";
import { listMenus } from "../../../core/chrome/menu_admin.ts";
import {
  MAX_RECENT_POSTS,
  MAX_REGION_BLOCKS,
  type RegionBlock,
} from "../../../core/chrome/region_blocks.ts";
import { POSTS_MODEL } from "../../../core/chrome/regions.ts";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import { loadModels } from "../../../core/models/store_rows.ts";
import { getSettings } from "../../../core/sites/settings.ts";
import {
  activeTemplateRegions,
  type DeclaredRegion,
} from "../../../core/templates/active_regions.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { page, type PageProps } from "../../../core/web/manifest.ts";
import { AdminShell } from "../_shell.tsx";
import {
  type DocumentData,
  DocumentFormHead,
  DocumentMessages,
  FieldProblem,
  openDocumentPage,
  requireSettingsWrite,
  saveAndAnswer,
} from "./_document.tsx";

export const middleware = requireSignedIn;

/** One block a region may take, as the add form offers it. */
interface Choice {
  value: string;
  label: string;
}

interface RegionsData extends DocumentData<"chrome"> {
  declared: readonly DeclaredRegion[];
  defaultLanguage: string;
  choices: Choice[];
  /** Names of the things blocks point at, for the lists. */
  names: Record<string, string>;
}

/** A block from the add form's choice (`menu:<key>`, `shared:<id>`, `categories:<field>`, …). */
function blockOf(
  choice: string,
  limit: number,
  title: Record<string, string> | undefined,
): RegionBlock | null {
  const [kind, arg = ""] = choice.split(":", 2);
  const t = title ? { title } : {};
  switch (kind) {
    case "menu":
      return { kind: "menu", menu: arg, ...t };
    case "shared":
      return { kind: "shared_section", entry: arg, ...t };
    case "categories":
      return { kind: "categories", field: arg, ...t };
    case "tags":
      return { kind: "tags", field: arg, ...t };
    case "recent_posts":
      return { kind: "recent_posts", limit, ...t };
    case "posts_by_month":
      return { kind: "posts_by_month", ...t };
    case "search":
      return { kind: "search", ...t };
  }
  return null;
}

function describe(block: RegionBlock, names: Record<string, string>): string {
  switch (block.kind) {
    case "menu":
      return `Menu ${block.menu}`;
    case "shared_section":
      return `Shared section ${names[block.entry] ?? block.entry}`;
    case "categories":
      return `Categories (${block.field})`;
    case "tags":
      return `Tags (${block.field})`;
    case "recent_posts":
      return `${block.limit} recent posts`;
    case "posts_by_month":
      return "Posts by month";
    case "search":
      return "Search";
  }
}

async function regionsData(
  c: Context<AppEnv>,
  extra: Partial<RegionsData> = {},
): Promise<RegionsData> {
  const { ctx, data } = await openDocumentPage(c, "chrome", "Regions");
  const { db } = ctx.services;
  const models = await loadModels(db, ctx.site.id, null);
  const posts = models.find((m) => m.slug === POSTS_MODEL);
  const shared = await sharedChoices(ctx, ctx.site.defaultLanguage);
  const choices: Choice[] = [
    ...(posts
      ? [
        { value: "recent_posts", label: "Recent posts" },
        { value: "posts_by_month", label: "Posts by month" },
        ...posts.fields.filter((f) => f.type === "select").map((f) => ({
          value: `categories:${f.key}`,
          label: `Categories by ${f.label}`,
        })),
        ...posts.fields.filter((f) =>
          f.type === "relation" && f.config.targets.length === 1
        ).map((f) => ({
          value: `tags:${f.key}`,
          label: `Tags by ${f.label}`,
        })),
      ]
      : []),
    { value: "search", label: "Search" },
    ...(await listMenus(db, ctx.site.id)).map((m) => ({
      value: `menu:${m.key}`,
      label: `Menu ${m.key}`,
    })),
    ...shared.map((s) => ({
      value: `shared:${s.value}`,
      label: `Shared section ${s.label}`,
    })),
  ];
  return {
    ...data,
    declared: await activeTemplateRegions(db, ctx.site.id),
    defaultLanguage: ctx.site.defaultLanguage,
    choices,
    names: Object.fromEntries(shared.map((s) => [s.value, s.label])),
    ...extra,
  };
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return page(await regionsData(c));
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody();
    const ctx = await adminContext(c);
    requireSettingsWrite(ctx, "chrome");
    const stored = (await getSettings(
      { db: ctx.services.db, siteId: ctx.site.id },
      "chrome",
    )).document;
    const region = String(form.region ?? "");
    const regions = structuredClone(stored.regions ?? {});
    const blocks = regions[region] ?? [];
    const at = Number(form.index);
    if (form.action === "add") {
      const heading = String(form.title ?? "").trim();
      const block = blockOf(
        String(form.block ?? ""),
        Number(form.limit ?? 5),
        heading ? { [ctx.site.defaultLanguage]: heading } : undefined,
      );
      // An unknown choice is left for the document check to refuse by name.
      blocks.push(block ?? ({ kind: String(form.block) } as never));
    } else if (form.action === "remove" && blocks[at]) {
      blocks.splice(at, 1);
    } else if (form.action === "up" && at > 0 && blocks[at]) {
      [blocks[at - 1], blocks[at]] = [blocks[at], blocks[at - 1]];
    }
    regions[region] = blocks;
    if (blocks.length === 0) delete regions[region];
    return saveAndAnswer(c, ctx, {
      key: "chrome",
      path: "/admin/settings/regions",
      document: { ...stored, regions },
      revision: form.revision,
      load: (shown) => regionsData(c, shown),
    });
  },
};

export default function Regions({ data }: PageProps<RegionsData>) {
  const regions = data.document.regions ?? {};
  const declared = new Set(data.declared.map((r) => r.key));
  const kept = Object.keys(regions).filter((k) => !declared.has(k));
  return (
    <AdminShell shell={data.shell} title="Regions">
      <DocumentMessages notice={data.notice} alert={data.alert} />
      <p class="muted">
        Regions are the places around every page that the site's template
        offers, such as footer columns. Each holds blocks in the order listed
        here: recent posts, categories, tags, posts by month, a menu, search or
        a shared section. A block with nothing published to show is left out of
        the site. <a href="/admin/settings/navigation">Menus</a>{" "}
        are made under Navigation.
      </p>
      {data.declared.length === 0 && (
        <p class="notice">The active template declares no regions.</p>
      )}
      {kept.length > 0 && (
        <p class="notice">
          Kept for an earlier template and not shown: {kept.join(", ")}
        </p>
      )}
      {data.declared.map((region) => {
        const blocks = regions[region.key] ?? [];
        const id = `region-${region.key}`;
        return (
          <section class="card stack" aria-labelledby={id} key={region.key}>
            <h2 id={id}>
              {region.label} <code class="muted">{region.key}</code>
            </h2>
            <FieldProblem
              problems={data.problems}
              path={`regions.${region.key}`}
              id={`${id}-error`}
            />
            {blocks.length === 0
              ? <p class="muted">Nothing here yet.</p>
              : (
                <ol class="stack">
                  {blocks.map((block, i) => (
                    <li key={i}>
                      <span>{describe(block, data.names)}</span>
                      {block.title?.[data.defaultLanguage] && (
                        <span class="muted">
                          {` · heading “${block.title[data.defaultLanguage]}”`}
                        </span>
                      )}{" "}
                      <form method="post" class="inline">
                        <DocumentFormHead
                          csrfToken={data.shell.csrfToken}
                          revision={data.revision}
                        />
                        <input type="hidden" name="region" value={region.key} />
                        <input type="hidden" name="index" value={String(i)} />
                        {i > 0 && (
                          <button
                            type="submit"
                            name="action"
                            value="up"
                            class="secondary"
                            aria-label={`Move ${
                              describe(block, data.names)
                            } up`}
                          >
                            Move up
                          </button>
                        )}{" "}
                        <button
                          type="submit"
                          name="action"
                          value="remove"
                          class="secondary"
                          aria-label={`Remove ${describe(block, data.names)}`}
                        >
                          Remove
                        </button>
                      </form>
                    </li>
                  ))}
                </ol>
              )}
            {blocks.length < MAX_REGION_BLOCKS && (
              <form method="post" class="stack">
                <DocumentFormHead
                  csrfToken={data.shell.csrfToken}
                  revision={data.revision}
                />
                <input type="hidden" name="region" value={region.key} />
                <input type="hidden" name="action" value="add" />
                <div class="field">
                  <label for={`${id}-block`}>Add to {region.label}</label>
                  <select id={`${id}-block`} name="block" required>
                    {data.choices.map((c) => (
                      <option key={c.value} value={c.value}>{c.label}</option>
                    ))}
                  </select>
                </div>
                <div class="field">
                  <label for={`${id}-title`}>
                    Heading (<code>{data.defaultLanguage}</code>, optional)
                  </label>
                  <input
                    id={`${id}-title`}
                    name="title"
                    maxLength={60}
                  />
                </div>
                <div class="field">
                  <label for={`${id}-limit`}>
                    How many recent posts
                  </label>
                  <input
                    id={`${id}-limit`}
                    name="limit"
                    type="number"
                    min={1}
                    max={MAX_RECENT_POSTS}
                    value="5"
                  />
                </div>
                <p class="buttons">
                  <button type="submit">Add</button>
                </p>
              </form>
            )}
          </section>
        );
      })}
    </AdminShell>
  );
}
