// GET /api/forms/submissions/{id}/attachments/{attachmentId}: a private attachment, for people
// holding site:infra on this site (spec 3 part 2.2; FORM-011, FORM-012). No storage key or public
// address is ever answered.
import type { Context } from "hono";
import {
  formAttachmentStore,
  readAttachment,
} from "../../../../../../core/forms/mod.ts";
import type { AppEnv } from "../../../../../../core/web/env.ts";
import { refuse } from "../../../../../../core/web/errors.ts";

export const handler = {
  async GET(c: Context<AppEnv>) {
    const user = c.var.user;
    if (!user) refuse(401, "unauthorized", "Sign in to download attachments");
    const { db, clock } = c.var.services;
    const found = await readAttachment({
      db,
      clock,
      siteId: c.var.site.id,
      personId: user.id,
      store: formAttachmentStore(c.var.services),
    }, {
      submissionId: c.req.param("id") ?? "",
      attachmentId: c.req.param("attachmentId") ?? "",
    });
    if (!found.ok) {
      if (found.code === "missing_permission") {
        refuse(403, found.code, "Attachments need the site:infra permission");
      }
      refuse(404, "not_found", "No such attachment");
    }
    const ascii = found.name.replace(/[^\x20-\x7e]|["\\]/g, "_");
    return new Response(found.bytes as Uint8Array<ArrayBuffer>, {
      headers: {
        "content-type": "application/octet-stream",
        "content-disposition":
          `attachment; filename="${ascii}"; filename*=UTF-8''${
            encodeURIComponent(found.name)
          }`,
        "x-content-type-options": "nosniff",
        "cache-control": "no-store, private",
      },
    });
  },
};
