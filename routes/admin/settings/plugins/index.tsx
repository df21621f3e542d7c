// GET/POST /admin/settings/plugins: the site's plugins, installing one from its manifest URL in two
// steps (review what it asks for, then grant and hand off), and discovering plugins in catalogues
// (`?discover=1`; a found entry's link fills the install form) (spec 1 parts 3.1, 4.3; site:plugins).
import type { Context } from "hono";
import { Fragment } from "preact";
import type { ShellData } from "../../../../core/admin/shell.ts";
import { requireSignedIn } from "../../../../core/auth/session_middleware.ts";
import {
  adminContext,
  catalogueContext,
} from "../../../../core/plugins/admin_routes.ts";
import {
  discoverCatalogues,
  type Discovered,
} from "../../../../core/plugins/catalogues.ts";
import type { Installation } from "../../../../core/plugins/installation_store.ts";
import {
  fetchManifest,
  installPlugin,
  listInstallations,
  type PluginAdminRefusal,
} from "../../../../core/plugins/installations.ts";
import type { ManifestV1 } from "../../../../core/plugins/manifest.ts";
import type { Capability } from "../../../../core/plugins/protocol.ts";
import type { AppEnv } from "../../../../core/web/env.ts";
import {
  page,
  type PageProps,
  type PageResult,
} from "../../../../core/web/manifest.ts";
import { AdminShell, openAdminPage } from "../../_shell.tsx";
import { formList } from "../../../../core/admin/form_values.ts";
import { siteModels } from "../_shared.tsx";
import {
  CAPABILITY_WORDS,
  capabilityOf,
  GrantFields,
  RefusalMessage,
  refusalStatus,
} from "./_shared.tsx";
import { LaunchForm, SettingsRowCards } from "./_open.tsx";
import { notificationWords } from "./_words.tsx";
import {
  type SettingsCard,
  settingsRowCards,
} from "../../../../core/plugins/cards.ts";
import { scrollRegion } from "../../_table.tsx";

export const middleware = requireSignedIn;

interface PluginsData {
  title: string;
  shell: ShellData;
  csrfToken: string;
  installations: {
    id: string;
    name: string;
    pluginId: string;
    version: string;
    state: string;
    /** It declares a management page to open. */
    managed: boolean;
    capabilities: number;
    models: string[];
  }[];
  models: { id: string; name: string; slug: string }[];
  /** The manifest under review, with the URL it came from. */
  review?: { url: string; manifest: ManifestV1 };
  /** What the person typed, kept when the server refuses it. */
  typed?: { url: string; capabilities: string[]; models: string[] };
  refusal?: PluginAdminRefusal;
  /** A pending installation the failed hand-off left, to activate on its own page. */
  waitingId?: string;
  /** How many catalogues `PLUGIN_CATALOGUES` lists. */
  catalogues: number;
  /** The plugins' `settings_row` cards the person may open. */
  pluginCards: SettingsCard[];
  /** What the catalogues offer, read only when asked (`?discover=1`). */
  discovered?: Discovered;
}

async function pageData(
  c: Context<AppEnv>,
  extra: Partial<PluginsData> = {},
): Promise<PluginsData | PluginAdminRefusal> {
  const listed = await listInstallations(adminContext(c));
  if (!listed.ok) return listed;
  const models = await siteModels(c);
  const { shell } = await openAdminPage(c, [
    { label: "Settings", href: "/admin/settings" },
    { label: "Plugins" },
  ]);
  const nameOf = (id: string) => models.find((m) => m.id === id)?.name ?? id;
  return {
    title: "Plugins",
    shell,
    csrfToken: c.var.csrfToken,
    installations: listed.installations.map((i: Installation) => ({
      id: i.id,
      name: i.name,
      pluginId: i.pluginId,
      version: i.version,
      state: i.state,
      managed: i.manifest.management_url !== undefined,
      capabilities: i.capabilities.length,
      models: i.modelIds.map(nameOf),
    })),
    models,
    catalogues: c.var.services.config.pluginCatalogues.length,
    pluginCards: await settingsRowCards(c.var.services.db, {
      siteId: c.var.site.id,
      userId: c.var.user!.id,
    }),
    ...extra,
  };
}

async function answer(
  c: Context<AppEnv>,
  extra: Partial<PluginsData> = {},
  status: 200 | 400 | 403 | 404 | 409 | 422 | 502 | 503 | 504 = 200,
): Promise<PageResult> {
  const data = await pageData(c, extra);
  if ("ok" in data) {
    return page(
      await deniedData(c, data),
      { status: refusalStatus(data) },
    );
  }
  return page(data, { status });
}

/** A person without site:plugins still gets the shell, with the refusal in words. */
async function deniedData(
  c: Context<AppEnv>,
  refusal: PluginAdminRefusal,
): Promise<PluginsData> {
  const { shell } = await openAdminPage(c, [
    { label: "Settings", href: "/admin/settings" },
    { label: "Plugins" },
  ]);
  return {
    title: "Plugins",
    shell,
    csrfToken: c.var.csrfToken,
    installations: [],
    models: [],
    catalogues: 0,
    pluginCards: [],
    refusal,
  };
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    // A catalogue entry's link fills the install form with its manifest URL.
    const url = c.req.query("manifest_url")?.trim().slice(0, 2048);
    const typed = url ? { url, capabilities: [], models: [] } : undefined;
    if (c.req.query("discover") !== "1") return await answer(c, { typed });
    const found = await discoverCatalogues(catalogueContext(c));
    if (!found.ok) {
      return await answer(c, { refusal: found }, refusalStatus(found));
    }
    return await answer(c, {
      typed,
      discovered: { entries: found.entries, left_out: found.left_out },
    });
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody({ all: true });
    const ctx = adminContext(c);
    const url = String(form.manifest_url ?? "").trim();
    if (form.action === "review") {
      const fetched = await fetchManifest(ctx, url);
      if (!fetched.ok) {
        return await answer(
          c,
          { refusal: fetched, typed: { url, capabilities: [], models: [] } },
          refusalStatus(fetched),
        );
      }
      return await answer(c, { review: { url, manifest: fetched.manifest } });
    }
    const capabilities = formList(form.capability).map(capabilityOf).filter((
      c,
    ): c is Capability => c !== null);
    const models = formList(form.model);
    const installed = await installPlugin(ctx, {
      manifest_url: url,
      activation_code: String(form.activation_code ?? ""),
      grant: { capabilities, model_ids: models },
    });
    if (!installed.ok) {
      // The installation stays pending when only the hand-off failed: finish it on its page.
      const pending = installed.code === "activation_refused" ||
          installed.code === "plugin_unreachable" ||
          installed.code === "plugin_timeout"
        ? (await listInstallations(ctx))
        : null;
      const waiting = pending?.ok
        ? pending.installations.find((i) =>
          i.state === "pending" && i.manifestUrl === url
        )
        : undefined;
      const fetched = await fetchManifest(ctx, url);
      return await answer(c, {
        refusal: installed,
        review: fetched.ok ? { url, manifest: fetched.manifest } : undefined,
        typed: { url, capabilities, models },
        waitingId: waiting?.id,
      }, refusalStatus(installed));
    }
    return c.redirect(
      `/admin/settings/plugins/${installed.installation.id}`,
      303,
    );
  },
};

const STATE_WORDS: Record<string, string> = {
  pending: "Waiting for the plugin to accept its token",
  active: "Active",
  disabled: "Disabled",
  revoked: "Uninstalled",
};

export default function Plugins({ data }: PageProps<PluginsData>) {
  const review = data.review;
  return (
    <AdminShell shell={data.shell} title="Plugins">
      {data.refusal && <RefusalMessage refusal={data.refusal} />}
      {data.waitingId && (
        <p class="alert">
          The plugin is installed but not active yet:{" "}
          <a href={`/admin/settings/plugins/${data.waitingId}`}>
            activate it with a new code
          </a>.
        </p>
      )}
      {data.refusal?.code !== "missing_permission" && (
        <>
          <section class="card">
            <h2>Installed</h2>
            {data.installations.length === 0
              ? <p class="muted">No plugin is installed on this site.</p>
              : (
                <div
                  class="table-wrap"
                  {...scrollRegion("Installed plugins table")}
                >
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Plugin</th>
                        <th scope="col">Version</th>
                        <th scope="col">State</th>
                        <th scope="col">Grant</th>
                        <th scope="col">Pages</th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.installations.map((i) => (
                        <tr key={i.id}>
                          <td>
                            <a href={`/admin/settings/plugins/${i.id}`}>
                              {i.name}
                            </a>
                            <br />
                            <code class="muted">{i.pluginId}</code>
                          </td>
                          <td>{i.version}</td>
                          <td>{STATE_WORDS[i.state] ?? i.state}</td>
                          <td>
                            {i.capabilities} capabilities;{" "}
                            {i.models.length ? i.models.join(", ") : "no model"}
                          </td>
                          <td>
                            {i.managed && i.state === "active"
                              ? (
                                <LaunchForm
                                  csrfToken={data.csrfToken}
                                  installationId={i.id}
                                  view={null}
                                  label={`Open ${i.name}`}
                                  secondary
                                />
                              )
                              : <span class="muted">None</span>}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
          </section>
          {data.pluginCards.length > 0 && (
            <section aria-labelledby="plugin-cards-heading">
              <h2 id="plugin-cards-heading">Plugins' pages</h2>
              <SettingsRowCards
                cards={data.pluginCards}
                csrfToken={data.csrfToken}
                headingLevel={3}
              />
            </section>
          )}
          {review
            ? (
              <section class="card" aria-labelledby="review-heading">
                <h2 id="review-heading">
                  Install {review.manifest.name} {review.manifest.version}
                </h2>
                <p>
                  <code>{review.manifest.id}</code> from{" "}
                  <code>{new URL(review.url).origin}</code>
                </p>
                {review.manifest.description && (
                  <p class="muted">{review.manifest.description}</p>
                )}
                <p class="muted">
                  {notificationWords(review.manifest.events)}
                </p>
                <p>
                  Choose what it may do. It acts only for the person who opens
                  it, and never beyond what that person may do themselves.
                </p>
                <form method="post">
                  <input type="hidden" name="_csrf" value={data.csrfToken} />
                  <input type="hidden" name="action" value="install" />
                  <input type="hidden" name="manifest_url" value={review.url} />
                  <GrantFields
                    offered={review.manifest.capabilities}
                    granted={data.typed?.capabilities ??
                      review.manifest.capabilities}
                    models={data.models}
                    grantedModels={data.typed?.models ?? []}
                  />
                  <p>
                    <label for="activation-code">Activation code</label>
                    <input
                      id="activation-code"
                      name="activation_code"
                      required
                      maxLength={512}
                      autocomplete="off"
                      aria-describedby="activation-help"
                    />
                    <span id="activation-help" class="muted">
                      The one-time code the plugin's operator gave you. It is
                      sent once to the plugin with its new token and never
                      stored.
                    </span>
                  </p>
                  <button type="submit">Install and activate</button>{" "}
                  <a href="/admin/settings/plugins" class="button secondary">
                    Cancel
                  </a>
                </form>
              </section>
            )
            : (
              <section class="card">
                <h2>Install a plugin</h2>
                <p class="muted">
                  Stave reads the plugin's manifest and shows what it asks for
                  before anything is installed.
                </p>
                <form method="post">
                  <input type="hidden" name="_csrf" value={data.csrfToken} />
                  <input type="hidden" name="action" value="review" />
                  <p>
                    <label for="manifest-url">Manifest URL</label>
                    <input
                      id="manifest-url"
                      name="manifest_url"
                      type="url"
                      required
                      maxLength={2048}
                      value={data.typed?.url ?? ""}
                      placeholder="https://plugin.example.com/svc/manifest.json"
                    />
                  </p>
                  <button type="submit">Review</button>
                </form>
              </section>
            )}
          <Discover data={data} />
          <section class="card">
            <h2>What capabilities mean</h2>
            <dl>
              {/* dt and dd are the grid's items, so the words wrap on a phone. */}
              {Object.entries(CAPABILITY_WORDS).map(([name, words]) => (
                <Fragment key={name}>
                  <dt>
                    <code>{name}</code>
                  </dt>
                  <dd>{words}</dd>
                </Fragment>
              ))}
            </dl>
          </section>
        </>
      )}
    </AdminShell>
  );
}

const REASON_WORDS: Record<string, string> = {
  catalogue_page_invalid: "A page is not a valid catalogue page",
  catalogue_page_too_large: "A page is larger than 128 KiB",
  catalogue_page_too_many_entries: "A page lists more than 100 plugins",
  catalogue_too_many_entries: "The catalogue lists more than 200 plugins",
  catalogue_too_many_pages: "The catalogue has more than 5 pages",
  catalogue_page_repeated: "A page links back to an earlier page",
  catalogue_entry_refused: "A plugin's manifest URL is not one Stave may call",
  url_not_https: "The catalogue is not on https",
  url_destination_refused: "The catalogue's address is not one Stave may call",
  remote_redirect_refused: "The catalogue answered a redirect",
  plugin_unreachable: "The catalogue could not be read",
  plugin_timeout: "The catalogue did not answer in time",
  plugin_response_invalid: "The catalogue's answer was not readable",
};

/** Plugins offered by the configured catalogues, each with a link that fills the install form. */
function Discover({ data }: { data: PluginsData }) {
  const found = data.discovered;
  return (
    <section class="card" id="discover" aria-labelledby="discover-heading">
      <h2 id="discover-heading">Discover plugins</h2>
      {data.catalogues === 0
        ? (
          <p class="muted">
            No catalogue is configured. The operator lists up to 4 catalogue
            URLs in the <code>PLUGIN_CATALOGUES</code> setting.
          </p>
        )
        : !found
        ? (
          <>
            <p class="muted">
              Read the {data.catalogues === 1
                ? "configured catalogue"
                : `${data.catalogues} configured catalogues`}{" "}
              for plugins to install. Nothing is installed until you review it.
            </p>
            <a
              href="/admin/settings/plugins?discover=1#discover"
              class="button"
            >
              Show plugins from catalogues
            </a>
          </>
        )
        : (
          <>
            {found.entries.length === 0
              ? <p class="muted">The catalogues offer no plugin.</p>
              : (
                <div
                  class="table-wrap"
                  {...scrollRegion("Catalogue entries table")}
                >
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Plugin</th>
                        <th scope="col">Catalogue</th>
                      </tr>
                    </thead>
                    <tbody>
                      {found.entries.map((e, i) => (
                        <tr key={i}>
                          <td>
                            {e.name}
                            {e.description && (
                              <>
                                <br />
                                <span class="muted">{e.description}</span>
                              </>
                            )}
                            <br />
                            <a
                              href={`/admin/settings/plugins?manifest_url=${
                                encodeURIComponent(e.manifest_url)
                              }#manifest-url`}
                            >
                              Use for {e.name}
                            </a>
                          </td>
                          <td>
                            <code>{originOf(e.catalogue)}</code>
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            {found.left_out.length > 0 && (
              <>
                <h3 id="left-out-heading">Catalogues left out</h3>
                <div
                  class="table-wrap"
                  {...scrollRegion("Catalogues left out table")}
                >
                  <table aria-labelledby="left-out-heading">
                    <thead>
                      <tr>
                        <th scope="col">Catalogue</th>
                        <th scope="col">Why</th>
                      </tr>
                    </thead>
                    <tbody>
                      {found.left_out.map((l) => (
                        <tr key={l.catalogue}>
                          <td>
                            <code>{l.catalogue}</code>
                          </td>
                          <td>
                            {REASON_WORDS[l.reason] ?? l.reason}{" "}
                            (<code>{l.reason}</code>)
                            <br />
                            <span class="muted">{l.message}</span>
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              </>
            )}
          </>
        )}
    </section>
  );
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
