// The saved queries of Settings → Backend access, each served at /api/_queries/<slug> with its
// own audience: its columns, equality filters, order and page size, fixed when generated.
import { Hono } from "hono";
import type { RouteContext } from "./crud_routes.ts";
import { refuse } from "./errors.ts";
import type { BackendSchema } from "./schema.ts";

/** The routes of every saved query that has a route. */
export function savedQueryRoutes(
  schema: BackendSchema,
  ctx: RouteContext,
): Hono {
  const app = new Hono();
  for (const query of schema.queries) {
    const model = schema.models.find((m) => m.name === query.model);
    if (!model) continue;
    app.get(`/${query.slug}`, async (c) => {
      const caller = await ctx.gate.callerOf(c);
      ctx.gate.admit(caller, query.access, "findMany", model.id);
      const skipText = c.req.query("skip") ?? "0";
      if (!/^\d{1,9}$/.test(skipText)) {
        refuse(400, "invalid_request", {
          message: "skip must be a whole number",
        });
      }
      let select = ctx.db.selectFrom(model.name).select(query.select);
      for (const [key, value] of Object.entries(query.filter)) {
        select = select.where(key, "=", value);
      }
      for (const order of query.orderBy) {
        select = select.orderBy(order.field, order.direction);
      }
      const rows = await select.orderBy("id").limit(query.take).offset(
        Number(skipText),
      ).execute();
      return c.json(rows);
    });
  }
  return app;
}
