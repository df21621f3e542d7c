// What an entry's plugin cards show beside their button: the answers of the card's plugin's
// read-only entry operations that need no input (the scheduling plugin's `schedule-status`: the
// entry's pending schedules), run as the signed-in person through the same invocation path as
// every operation (spec 1 part 2.5), so a card shows what the plugin holds, not a copy.
import type { CardStatus, PluginCard } from "../plugins/cards.ts";
import type { AdminContext } from "./context.ts";
import { runFromAdmin, runnableOperations } from "./plugin_operations.ts";

const INSTANT = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2}(\.\d+)?)?Z$/;

/** A cell as the card reads it: an instant as `2026-11-24 08:00 UTC`, like the rest of the admin. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = String(value);
  const instant = INSTANT.exec(text);
  return instant ? `${instant[1]} ${instant[2]} UTC` : text;
}

/** Most rows a card shows of one answer; the operations page has the rest. */
export const CARD_STATUS_ROWS = 10;

/**
 * `cards` with each installation's status answers on its first card. An operation qualifies when
 * it is interactive, entry- or page-scoped and granted on `modelId`, not destructive, asks for
 * no required input and answers rows. A plugin that cannot answer leaves its reason on the card
 * and never stops the editor.
 */
export async function withCardStatus(
  ctx: AdminContext,
  target: { modelId: string; instanceId: string },
  cards: PluginCard[],
): Promise<PluginCard[]> {
  if (cards.length === 0) return cards;
  const installations = new Set(cards.map((c) => c.installationId));
  const ops = (await runnableOperations(ctx, target.modelId)).filter((r) =>
    installations.has(r.installationId) && !r.op.destructive &&
    r.op.input.every((f) => !f.required) && r.op.result.includes("rows")
  );
  if (ops.length === 0) return cards;
  const answers = await Promise.all(ops.map(async (r) => {
    const ran = await runFromAdmin(ctx, {
      installationId: r.installationId,
      operationId: r.op.id,
      instanceId: target.instanceId,
      input: {},
    });
    const status: CardStatus = {
      label: r.op.label,
      columns: [],
      rows: [],
      error: null,
    };
    if (!ran.ok) {
      status.error = ran.message;
      return { installationId: r.installationId, status };
    }
    for (const block of ran.result.blocks) {
      if (block.type !== "rows") continue;
      if (status.columns.length === 0) status.columns = block.columns;
      status.rows.push(
        ...block.rows.map((row) =>
          Object.fromEntries(
            Object.entries(row).map(([k, v]) => [k, cellText(v)]),
          )
        ),
      );
    }
    status.rows = status.rows.slice(0, CARD_STATUS_ROWS);
    return { installationId: r.installationId, status };
  }));
  const seen = new Set<string>();
  return cards.map((card) => {
    if (seen.has(card.installationId)) return card;
    seen.add(card.installationId);
    const status = answers.filter((a) =>
      a.installationId === card.installationId
    )
      .map((a) => a.status);
    return status.length > 0 ? { ...card, status } : card;
  });
}
