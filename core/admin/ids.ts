// The one way admin routes read ids from URLs and forms: a value that is not an id never reaches SQL.
import type { MiddlewareHandler } from "hono";
import { z } from "zod";
import { one } from "./form_values.ts";
import type { AppEnv } from "../web/env.ts";
import { refuse } from "../web/errors.ts";

import { isId } from "../entries/store.ts";

export { isId };

/** An id in a closed JSON body of an admin route: anything else is `400 invalid_request` naming the field. */
export const idField = z.string().refine(isId, "must be an id");

/**
 * What each `[param]` of an admin route holds. An `id` is checked before the route runs; a
 * `slug` or `name` is looked up as text, so any value is safe and an unknown one is the route's
 * own 404. A route with a parameter missing here fails loudly, so a new one is declared.
 */
export const ADMIN_PARAM_KINDS: Readonly<
  Record<string, "id" | "slug" | "name">
> = {
  id: "id",
  attachmentId: "id",
  model: "slug",
  key: "name",
  act: "name",
  policy: "name",
};

/**
 * Middleware of every admin route (pages and their JSON helpers): a URL whose id parameter is
 * not an id answers 404, the admin's styled page for a page and the JSON error otherwise.
 */
export const checkIdParams: MiddlewareHandler<AppEnv> =
  async function checkIdParams(
    c,
    next,
  ) {
    const params = c.req.param() as Record<string, string>;
    for (const [name, value] of Object.entries(params)) {
      const kind = ADMIN_PARAM_KINDS[name];
      if (kind === undefined) {
        throw new Error(
          `Cannot check route parameter "${name}" of "${c.req.routePath}": declare what it holds in ADMIN_PARAM_KINDS (core/admin/ids.ts)`,
        );
      }
      if (kind === "id" && !isId(value)) {
        refuse(404, "not_found", "There is nothing at this address");
      }
    }
    await next();
  };

/** A field problem of a form: the field's name and what to tell the person. */
export interface FieldProblem {
  ok: false;
  field: string;
  message: string;
}

/** Reads a form field that must hold an id; `message` tells the person what to choose when it does not. */
export function formId(
  form: Record<string, unknown>,
  name: string,
  message: string,
): { ok: true; id: string } | FieldProblem {
  const value = one(form[name]).trim();
  if (isId(value)) return { ok: true, id: value.toLowerCase() };
  return { ok: false, field: name, message };
}

/** Reads a form field that may be empty (none) or hold an id. */
export function optionalFormId(
  form: Record<string, unknown>,
  name: string,
  message: string,
): { ok: true; id: string | null } | FieldProblem {
  if (one(form[name]).trim() === "") return { ok: true, id: null };
  return formId(form, name, message);
}
