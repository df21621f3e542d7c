// GET/POST /admin/settings/source-delivery: deployed API read tokens of the generated backend (site:infra).
import type { Context } from "hono";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import {
  issueReadToken,
  listReadTokens,
  READ_TOKEN_NAME_MAX,
  type ReadTokenRefusal,
  type ReadTokenRow,
  revokeReadToken,
  rotateReadToken,
} from "../../../core/backend/read_tokens.ts";
import { formList } from "../../../core/admin/form_values.ts";
import type { ShellData } from "../../../core/admin/shell.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";
import { page, type PageProps } from "../../../core/web/manifest.ts";
import { AdminShell, openAdminPage } from "../_shell.tsx";
import {
  personContext,
  refusalStatus,
  RevokeCell,
  ShownOnce,
  siteModels,
} from "./_shared.tsx";
import { scrollRegion } from "../_table.tsx";

export const middleware = requireSignedIn;

const HERE = "/admin/settings/source-delivery";

/** What the page shows. */
interface SourceDeliveryData {
  title: string;
  shell: ShellData;
  csrfToken: string;
  tokens: ReadTokenRow[];
  models: { id: string; name: string }[];
  /** The secret just issued: shown on this one answer only. */
  created?: { name: string; token: string; rotated: boolean };
  error?: string;
}

async function pageData(
  c: Context<AppEnv>,
  extra: Partial<SourceDeliveryData> = {},
): Promise<SourceDeliveryData> {
  const listed = await listReadTokens(personContext(c));
  if (!listed.ok) {
    refuse(
      403,
      "missing_permission",
      "Source and delivery settings need the site:infra permission",
    );
  }
  const { shell } = await openAdminPage(c, [
    { label: "Settings", href: "/admin/settings" },
    { label: "Source & delivery" },
  ]);
  return {
    title: "Source & delivery",
    shell,
    csrfToken: c.var.csrfToken,
    tokens: listed.tokens,
    models: (await siteModels(c)).map((m) => ({ id: m.id, name: m.name })),
    ...extra,
  };
}

function messageOf(refusal: ReadTokenRefusal): string {
  if (refusal.code === "input_invalid") return refusal.message;
  if (refusal.code === "not_found") {
    return "That token does not exist or is already revoked";
  }
  return "Source and delivery settings need the site:infra permission";
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return page(await pageData(c));
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody({ all: true });
    const ctx = personContext(c);
    const id = String(form.id ?? "");
    if (form.action === "revoke") {
      const revoked = await revokeReadToken(ctx, id);
      if (!revoked.ok) {
        return page(await pageData(c, { error: messageOf(revoked) }), {
          status: refusalStatus(revoked.code),
        });
      }
      return c.redirect(HERE, 303);
    }
    const name = String(form.name ?? "");
    const issued = form.action === "rotate"
      ? await rotateReadToken(ctx, id)
      : await issueReadToken(ctx, { name, modelIds: formList(form.model) });
    if (!issued.ok) {
      return page(await pageData(c, { error: messageOf(issued) }), {
        status: refusalStatus(issued.code),
      });
    }
    const data = await pageData(c);
    const row = data.tokens.find((t) => t.id === issued.id);
    return page({
      ...data,
      created: {
        name: row?.name ?? name.trim(),
        token: issued.token,
        rotated: form.action === "rotate",
      },
    }, { status: 201 });
  },
};

function when(iso: string): string {
  return iso.slice(0, 16).replace("T", " ");
}

export default function SourceDeliverySettings(
  { data }: PageProps<SourceDeliveryData>,
) {
  const nameOf = (id: string) =>
    data.models.find((m) => m.id === id)?.name ?? id;
  return (
    <AdminShell shell={data.shell} title="Source & delivery">
      {data.error && <p role="alert" class="alert">{data.error}</p>}
      {data.created && (
        <>
          <ShownOnce
            title={`Read token “${data.created.name}”`}
            id="created-token"
            value={data.created.token}
          />
          <p class="muted">
            {data.created.rotated
              ? "The old token keeps working. Regenerate and deploy the backend, move every caller to the new token, then revoke the old one and deploy again."
              : "The deployed backend accepts it only after you regenerate and deploy it."}
          </p>
        </>
      )}
      <section class="card">
        <h2>Deployed API read tokens</h2>
        <p class="muted">
          A read token lets a caller read the models it names from the generated
          backend, sent as Authorization: Bearer sv_art_…. Tokens, revocations
          and rotations reach a deployed backend only when it is regenerated and
          deployed again. Site API tokens are never copied into it.
        </p>
        {data.tokens.length === 0
          ? <p class="muted">None yet.</p>
          : (
            <div class="table-wrap" {...scrollRegion("Read tokens table")}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Models</th>
                    <th scope="col">Created</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {data.tokens.map((token) => (
                    <tr key={token.id}>
                      <td>
                        {token.name}
                        {token.replaces && (
                          <span class="muted">(replacement)</span>
                        )}
                      </td>
                      <td>{token.model_ids.map(nameOf).join(", ") || "—"}</td>
                      <td>{when(token.created_at)}</td>
                      <td>
                        <RevokeCell
                          csrfToken={data.csrfToken}
                          id={token.id}
                          revoked={token.revoked_at !== null}
                        />{" "}
                        {token.revoked_at === null && (
                          <form method="post" class="inline">
                            <input
                              type="hidden"
                              name="_csrf"
                              value={data.csrfToken}
                            />
                            <input type="hidden" name="action" value="rotate" />
                            <input type="hidden" name="id" value={token.id} />
                            <button
                              type="submit"
                              class="secondary"
                              aria-label={`Replace ${token.name}`}
                            >
                              Replace
                            </button>
                          </form>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        <form method="post">
          <input type="hidden" name="_csrf" value={data.csrfToken} />
          <input type="hidden" name="action" value="issue" />
          <p>
            <label for="token-name">Name</label>
            <input
              id="token-name"
              name="name"
              required
              maxLength={READ_TOKEN_NAME_MAX}
            />
          </p>
          <fieldset>
            <legend>Models it may read</legend>
            {data.models.length === 0 && <p class="muted">No models yet.</p>}
            {data.models.map((model) => (
              <label key={model.id} class="check">
                <input type="checkbox" name="model" value={model.id} />{" "}
                {model.name}
              </label>
            ))}
          </fieldset>
          <button type="submit">Issue read token</button>
        </form>
      </section>
    </AdminShell>
  );
}
