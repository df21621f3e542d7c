// GET/POST /admin/settings/plugins/{id}: one installation: its grant, upgrade with a diff of
// permissions, rotate, disable, enable, uninstall with a confirmation, and its audit trail
// (spec 1 parts 2.9, 3.1; site:plugins).
import type { Context } from "hono";
import type { ShellData } from "../../../../core/admin/shell.ts";
import { requireSignedIn } from "../../../../core/auth/session_middleware.ts";
import { adminContext } from "../../../../core/plugins/admin_routes.ts";
import {
  activatePlugin,
  changeGrant,
  disablePlugin,
  enablePlugin,
  installationWithTrail,
  type PluginAdminRefusal,
  previewUpgrade,
  rotateToken,
  setPolicyMode,
  uninstallPlugin,
  upgradePlugin,
  type UpgradeReview,
} from "../../../../core/plugins/installations.ts";
import type {
  Installation,
  PolicyMode,
} from "../../../../core/plugins/installation_store.ts";
import { policyModeOf } from "../../../../core/plugins/policies.ts";
import type { Capability } from "../../../../core/plugins/protocol.ts";
import { readReach } from "../../../../core/access/decide.ts";
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
  capabilityOf,
  GrantFields,
  RefusalMessage,
  refusalStatus,
} from "./_shared.tsx";
import {
  ACTION_WORDS,
  CapabilityList,
  ManifestChangeList,
  MODE_NAMES,
  notificationWords,
  POLICY_KIND_WORDS,
  STATE_WORDS,
  who,
} from "./_words.tsx";
import { type OpenablePlugin, OpenPlugin } from "./_open.tsx";
import { scrollRegion } from "../../_table.tsx";

export const middleware = requireSignedIn;

interface TrailRow {
  action: string;
  who: string;
  at: string;
}

interface PluginData {
  title: string;
  shell: ShellData;
  csrfToken: string;
  installation?: {
    id: string;
    name: string;
    pluginId: string;
    /** Which changes Stave tells the plugin of, in words. */
    told: string;
    version: string;
    state: Installation["state"];
    origin: string;
    requested: Capability[];
    granted: Capability[];
    modelIds: string[];
    overlapping: boolean;
    policies: {
      id: string;
      label: string;
      description: string | null;
      kind: string;
      declared: PolicyMode;
      mode: PolicyMode;
    }[];
  };
  models: { id: string; name: string; slug: string }[];
  /** What the person may open of the plugin's own pages. */
  open?: OpenablePlugin;
  trail: TrailRow[];
  diff?: UpgradeReview;
  notice?: string;
  refusal?: PluginAdminRefusal;
}

async function pageData(
  c: Context<AppEnv>,
  extra: Partial<PluginData> = {},
): Promise<{ data: PluginData; status: number }> {
  const id = c.req.param("id") ?? "";
  const found = await installationWithTrail(adminContext(c), id);
  const models = found.ok ? await siteModels(c) : [];
  const name = found.ok ? found.installation.name : "Plugin";
  const { ctx, shell } = await openAdminPage(c, [
    { label: "Settings", href: "/admin/settings" },
    { label: "Plugins", href: "/admin/settings/plugins" },
    { label: name },
  ]);
  if (!found.ok) {
    return {
      data: {
        title: "Plugin",
        shell,
        csrfToken: c.var.csrfToken,
        models: [],
        trail: [],
        refusal: found,
      },
      status: refusalStatus(found),
    };
  }
  const i = found.installation;
  const readsGranted = i.modelIds.some((m) =>
    readReach(ctx.authority, m) !== "none"
  );
  return {
    data: {
      title: i.name,
      shell,
      csrfToken: c.var.csrfToken,
      installation: {
        id: i.id,
        name: i.name,
        pluginId: i.pluginId,
        version: i.version,
        state: i.state,
        origin: new URL(i.manifestUrl).origin,
        requested: i.manifest.capabilities,
        told: notificationWords(i.manifest.events),
        granted: i.capabilities,
        modelIds: i.modelIds,
        overlapping: i.overlapping,
        policies: i.manifest.policies.map((p) => ({
          id: p.id,
          label: p.label,
          description: p.description ?? null,
          kind: p.kind,
          declared: p.mode,
          mode: policyModeOf(i, p),
        })),
      },
      models,
      open: {
        id: i.id,
        name: i.name,
        managed: i.state === "active" &&
          i.manifest.management_url !== undefined,
        views: readsGranted
          ? i.manifest.manage_views.map((v) => ({ id: v.id, label: v.label }))
          : [],
        closedViews: readsGranted ? 0 : i.manifest.manage_views.length,
      },
      trail: found.trail.map((t) => ({
        action: ACTION_WORDS[t.action] ?? t.action,
        who: who(t.actor),
        at: t.at.toISOString().slice(0, 16).replace("T", " "),
      })),
      ...extra,
    },
    status: 200,
  };
}

async function answer(
  c: Context<AppEnv>,
  extra: Partial<PluginData> = {},
  status?: number,
): Promise<PageResult> {
  const built = await pageData(c, extra);
  return page(built.data, { status: status ?? built.status });
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return await answer(c);
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody({ all: true });
    const ctx = adminContext(c);
    const id = c.req.param("id") ?? "";
    const back = () => c.redirect(`/admin/settings/plugins/${id}`, 303);
    const refused = async (refusal: PluginAdminRefusal) =>
      await answer(c, { refusal }, refusalStatus(refusal));
    switch (form.action) {
      case "disable":
      case "enable": {
        const done =
          await (form.action === "disable" ? disablePlugin : enablePlugin)(
            ctx,
            id,
          );
        return done.ok ? back() : await refused(done);
      }
      case "uninstall": {
        if (form.confirm !== "yes") {
          return await answer(c, {
            refusal: {
              ok: false,
              code: "invalid_request",
              message:
                "Tick the confirmation: uninstalling ends the plugin's access for good",
            },
          }, 400);
        }
        const done = await uninstallPlugin(ctx, id);
        return done.ok ? back() : await refused(done);
      }
      case "activate":
      case "rotate": {
        const code = String(form.code ?? "");
        const done = form.action === "activate"
          ? await activatePlugin(ctx, id, code)
          : await rotateToken(ctx, id, code);
        return done.ok ? back() : await refused(done);
      }
      case "grant": {
        const done = await changeGrant(ctx, id, {
          capabilities: formList(form.capability).map(capabilityOf).filter((
            x,
          ): x is Capability => x !== null),
          model_ids: formList(form.model),
        });
        return done.ok ? back() : await refused(done);
      }
      case "policy-mode": {
        const mode = String(form.mode ?? "");
        if (mode !== "blocking" && mode !== "advisory" && mode !== "off") {
          return await answer(c, {
            refusal: {
              ok: false,
              code: "invalid_request",
              message: "Choose blocking, advisory or off",
            },
          }, 400);
        }
        const done = await setPolicyMode(
          ctx,
          id,
          String(form.policy ?? ""),
          mode,
        );
        return done.ok ? back() : await refused(done);
      }
      case "check-upgrade": {
        const preview = await previewUpgrade(ctx, id);
        return preview.ok
          ? await answer(c, { diff: preview.diff })
          : await refused(preview);
      }
      case "upgrade": {
        const done = await upgradePlugin(ctx, id, {
          expected_version: String(form.expected_version ?? ""),
        });
        return done.ok ? back() : await refused(done);
      }
      default:
        return await answer(c, {
          refusal: {
            ok: false,
            code: "invalid_request",
            message: "Unknown action",
          },
        }, 400);
    }
  },
};

export default function PluginPage({ data }: PageProps<PluginData>) {
  const i = data.installation;
  const csrf = <input type="hidden" name="_csrf" value={data.csrfToken} />;
  return (
    <AdminShell shell={data.shell} title={data.title}>
      {data.refusal && <RefusalMessage refusal={data.refusal} />}
      {i && (
        <>
          <section class="card">
            <h2>About</h2>
            <dl>
              <dt>Plugin</dt>
              <dd>
                <code>{i.pluginId}</code> {i.version} from{" "}
                <code>{i.origin}</code>
              </dd>
              <dt>State</dt>
              <dd>
                {STATE_WORDS[i.state]}
                {i.overlapping &&
                  " (the previous token works for up to 10 minutes after the rotation)"}
              </dd>
              <dt>Notifications</dt>
              <dd>{i.told}</dd>
            </dl>
            {i.state !== "revoked" && (
              <div class="actions">
                {(i.state === "active" || i.state === "disabled") && (
                  <form method="post" class="inline">
                    {csrf}
                    <input
                      type="hidden"
                      name="action"
                      value={i.state === "active" ? "disable" : "enable"}
                    />
                    <button type="submit" class="secondary">
                      {i.state === "active" ? "Disable" : "Enable"}
                    </button>
                  </form>
                )}
              </div>
            )}
          </section>
          {data.open && (
            <OpenPlugin plugin={data.open} csrfToken={data.csrfToken} />
          )}
          {i.state !== "revoked" && (
            <section class="card">
              <h2>Grant</h2>
              <p class="muted">
                A narrower grant applies to the plugin's very next request.
              </p>
              <form method="post">
                {csrf}
                <input type="hidden" name="action" value="grant" />
                <GrantFields
                  offered={i.requested}
                  granted={i.granted}
                  models={data.models}
                  grantedModels={i.modelIds}
                />
                <button type="submit">Save grant</button>
              </form>
            </section>
          )}
          {i.state !== "revoked" && i.policies.length > 0 && (
            <section class="card" aria-labelledby="policies-heading">
              <h2 id="policies-heading">Content policies</h2>
              <p class="muted">
                The plugin is asked before these writes on the models it is
                granted, after the service's own checks.{" "}
                <strong>Blocking</strong>: a refusal or no answer stops the
                write.{" "}
                <strong>Advisory</strong>: a refusal stops the write; no answer
                only warns. <strong>Off</strong>: the policy is not asked.
              </p>
              {i.policies.map((p) => (
                <form method="post" class="policy-mode" key={p.id}>
                  {csrf}
                  <input type="hidden" name="action" value="policy-mode" />
                  <input type="hidden" name="policy" value={p.id} />
                  <p>
                    <strong>{p.label}</strong> (<code>{p.id}</code>) —{" "}
                    {POLICY_KIND_WORDS[p.kind]}
                    {p.description && (
                      <>
                        <br />
                        <span class="muted">{p.description}</span>
                      </>
                    )}
                  </p>
                  <div class="field">
                    <label for={`policy-mode-${p.id}`}>Mode</label>
                    <select
                      id={`policy-mode-${p.id}`}
                      name="mode"
                      aria-describedby={`policy-declared-${p.id}`}
                    >
                      {(["blocking", "advisory", "off"] as const).map((m) => (
                        <option value={m} selected={m === p.mode}>
                          {MODE_NAMES[m]}
                        </option>
                      ))}
                    </select>
                    <span id={`policy-declared-${p.id}`} class="hint">
                      The plugin declares it {p.declared}.
                    </span>
                  </div>
                  <button type="submit" class="secondary">
                    Save mode of {p.label}
                  </button>
                </form>
              ))}
            </section>
          )}
          {i.state !== "revoked" && (
            <section class="card" aria-labelledby="upgrade-heading">
              <h2 id="upgrade-heading">Upgrade</h2>
              {data.diff
                ? (
                  <form method="post">
                    {csrf}
                    <input type="hidden" name="action" value="upgrade" />
                    <input
                      type="hidden"
                      name="expected_version"
                      value={data.diff.to_version}
                    />
                    <p>
                      {data.diff.from_version} → {data.diff.to_version}
                      {data.diff.name.from !== data.diff.name.to &&
                        ` (now named ${data.diff.name.to})`}
                    </p>
                    <h3>Newly requested (left ungranted)</h3>
                    <CapabilityList
                      capabilities={data.diff.capabilities_added}
                    />
                    <h3>No longer requested (removed from the grant)</h3>
                    <CapabilityList
                      capabilities={data.diff.capabilities_removed}
                    />
                    <h3>Declarations and addresses</h3>
                    <ManifestChangeList review={data.diff} />
                    <button type="submit">
                      Upgrade to {data.diff.to_version}
                    </button>
                  </form>
                )
                : (
                  <form method="post">
                    {csrf}
                    <input type="hidden" name="action" value="check-upgrade" />
                    <p class="muted">
                      Reads the plugin's manifest again and shows what would
                      change before anything does.
                    </p>
                    <button type="submit" class="secondary">
                      Check for an upgrade
                    </button>
                  </form>
                )}
            </section>
          )}
          {i.state === "pending" && (
            <section class="card">
              <h2>Activate</h2>
              <p>
                The plugin has not accepted its token yet. Ask its operator for
                a new activation code and send it again.
              </p>
              <form method="post">
                {csrf}
                <input type="hidden" name="action" value="activate" />
                <div class="field">
                  <label for="activation-code">Activation code</label>
                  <input
                    id="activation-code"
                    name="code"
                    required
                    maxLength={256}
                    autocomplete="off"
                  />
                </div>
                <button type="submit">Activate</button>
              </form>
            </section>
          )}
          {(i.state === "active" || i.state === "disabled") && (
            <section class="card">
              <h2>Rotate the token</h2>
              <form method="post">
                {csrf}
                <input type="hidden" name="action" value="rotate" />
                <div class="field">
                  <label for="rotation-code">Rotation code</label>
                  <input
                    id="rotation-code"
                    name="code"
                    required
                    maxLength={256}
                    autocomplete="off"
                    aria-describedby="rotation-help"
                  />
                  <span id="rotation-help" class="hint">
                    A one-time code from the plugin's operator for this
                    installation. The new token goes only to the plugin's pinned
                    activation address.
                  </span>
                </div>
                <button type="submit" class="secondary">Rotate</button>
              </form>
            </section>
          )}
          {i.state !== "revoked" && (
            <section class="card">
              <h2>Uninstall</h2>
              <form method="post">
                {csrf}
                <input type="hidden" name="action" value="uninstall" />
                <label class="check">
                  <input type="checkbox" name="confirm" value="yes" required />
                  {" "}
                  I understand the plugin loses its access for good; its history
                  stays in the audit trail.
                </label>
                <p>
                  <button type="submit" class="danger">Uninstall</button>
                </p>
              </form>
            </section>
          )}
          <section class="card">
            <h2>Audit trail</h2>
            {data.trail.length === 0
              ? <p class="muted">Nothing yet.</p>
              : (
                <div class="table-wrap" {...scrollRegion("Audit trail table")}>
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">What</th>
                        <th scope="col">Who</th>
                        <th scope="col">When (UTC)</th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.trail.map((t, n) => (
                        <tr key={n}>
                          <td>{t.action}</td>
                          <td>{t.who}</td>
                          <td>{t.at}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
          </section>
        </>
      )}
    </AdminShell>
  );
}
