// GET/POST /admin/models/{id}/order: the editorial order of a model's entries, the order /v1 serves
// with `order=manual` (shared across languages). Each entry has Move up / Move down / To the top /
// To the bottom buttons: plain forms, so ordering works by keyboard and without JavaScript.
import type { Context } from "hono";
import {
  type ManualOrder,
  mayOrder,
  moveInOrder,
  type OrderMove,
  readManualOrder,
} from "../../../../core/admin/manual_order.ts";
import type { ShellData } from "../../../../core/admin/shell.ts";
import { requireSignedIn } from "../../../../core/auth/session_middleware.ts";
import { getModel } from "../../../../core/models/model_reads.ts";
import type { AppEnv } from "../../../../core/web/env.ts";
import { refuse } from "../../../../core/web/errors.ts";
import { page, type PageProps } from "../../../../core/web/manifest.ts";
import { AdminShell, openAdminPage } from "../../_shell.tsx";

export const middleware = requireSignedIn;

interface OrderData {
  title: string;
  shell: ShellData;
  model: { id: string; slug: string; name: string };
  order: ManualOrder;
  alert?: string;
  /** The entry just moved, whose buttons keep the place on the page. */
  moved?: string;
}

const MOVES: readonly OrderMove[] = ["up", "down", "top", "bottom"];

async function load(c: Context<AppEnv>) {
  const { ctx, shell } = await openAdminPage(c, []);
  const { db, clock } = ctx.services;
  const found = await getModel(
    { db, clock, siteId: ctx.site.id },
    c.req.param("id")!,
  );
  if (!found.ok) refuse(404, "not_found", "No such model on this site");
  const model = found.model;
  if (!mayOrder(ctx, model.id)) {
    refuse(
      403,
      "missing_permission",
      "Ordering entries needs read and update on every entry of the model",
    );
  }
  shell.crumbs.push(
    { label: model.name, href: `/admin/content/${model.slug}` },
    { label: "Order" },
  );
  return { ctx, shell, model };
}

async function answer(
  c: Context<AppEnv>,
  extra: Partial<OrderData> = {},
  status = 200,
) {
  const { ctx, shell, model } = await load(c);
  const data: OrderData = {
    title: `Order of ${model.name}`,
    shell,
    model: { id: model.id, slug: model.slug, name: model.name },
    order: await readManualOrder(ctx, model.id),
    moved: c.req.query("moved") ?? undefined,
    ...extra,
  };
  return page(data, { status });
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return await answer(c);
  },

  async POST(c: Context<AppEnv>) {
    const { ctx, model } = await load(c);
    const form = await c.req.parseBody();
    const to = String(form.to ?? "") as OrderMove;
    const revision = Number(form.revision);
    if (!MOVES.includes(to) || !Number.isInteger(revision)) {
      return await answer(c, { alert: "Choose a move for an entry" }, 400);
    }
    const groupId = String(form.entry ?? "");
    const moved = await moveInOrder(ctx, model.id, {
      groupId,
      to,
      expectedRevision: revision,
    });
    if (!moved.ok) {
      return await answer(
        c,
        { alert: moved.message },
        moved.code === "order_changed"
          ? 409
          : moved.code === "not_found"
          ? 404
          : 403,
      );
    }
    return c.redirect(
      `/admin/models/${model.id}/order?moved=${groupId}#entry-${groupId}`,
      303,
    );
  },
};

function MoveButton(
  props: {
    data: OrderData;
    entry: { groupId: string; title: string };
    to: OrderMove;
    disabled: boolean;
  },
) {
  const words: Record<OrderMove, [string, string]> = {
    up: ["Up", "Move up"],
    down: ["Down", "Move down"],
    top: ["To the top", "Move to the top"],
    bottom: ["To the bottom", "Move to the bottom"],
  };
  const [shown, said] = words[props.to];
  return (
    <form method="post" class="inline">
      <input type="hidden" name="_csrf" value={props.data.shell.csrfToken} />
      <input
        type="hidden"
        name="revision"
        value={String(props.data.order.revision)}
      />
      <input type="hidden" name="entry" value={props.entry.groupId} />
      <button
        type="submit"
        name="to"
        value={props.to}
        class="secondary"
        disabled={props.disabled}
        aria-label={`${said}: ${props.entry.title}`}
      >
        {shown}
      </button>
    </form>
  );
}

export default function OrderPage({ data }: PageProps<OrderData>) {
  const entries = data.order.entries;
  const last = entries.length - 1;
  return (
    <AdminShell
      shell={data.shell}
      title={data.title}
      actions={
        <a class="button secondary" href={`/admin/content/${data.model.slug}`}>
          Back to {data.model.name}
        </a>
      }
    >
      {data.alert && <p role="alert" class="alert">{data.alert}</p>}
      <p class="muted">
        The order readers get when a front end asks for{" "}
        <code>order=manual</code>, the same in every language. Drafts keep their
        place for when they are published.
      </p>
      {entries.length === 0
        ? <p>No entries yet.</p>
        : (
          <ol class="card order-list">
            {entries.map((e, i) => (
              <li
                key={e.groupId}
                id={`entry-${e.groupId}`}
                class={data.moved === e.groupId ? "moved" : undefined}
              >
                <span class="order-title">
                  <span class="order-position">{i + 1}.</span> {e.title}
                  {!e.published && <span class="badge">Draft</span>}
                </span>
                <span class="buttons">
                  <MoveButton
                    data={data}
                    entry={e}
                    to="top"
                    disabled={i === 0}
                  />
                  <MoveButton
                    data={data}
                    entry={e}
                    to="up"
                    disabled={i === 0}
                  />
                  <MoveButton
                    data={data}
                    entry={e}
                    to="down"
                    disabled={i === last}
                  />
                  <MoveButton
                    data={data}
                    entry={e}
                    to="bottom"
                    disabled={i === last}
                  />
                </span>
              </li>
            ))}
          </ol>
        )}
      {data.order.more > 0 && (
        <p class="muted">
          {data.order.more} more entries follow these.
        </p>
      )}
    </AdminShell>
  );
}
