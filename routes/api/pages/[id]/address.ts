// POST /api/pages/{id}/address: the admin side's way to set or change a page's address in a new
// draft version (DLV-013); the same service as the Management API's set-page-address.
import type { Context } from "hono";
import { adminContext } from "../../../../core/admin/context.ts";
import { setPageAddress as contract } from "../../../../core/manage/contract/pages.ts";
import {
  refuseWith,
  writtenAnswer,
} from "../../../../core/manage/handlers/entries_support.ts";
import { changePageAddress } from "../../../../core/pages/page_address_command.ts";
import type { AppEnv } from "../../../../core/web/env.ts";
import { refuse } from "../../../../core/web/errors.ts";
import { readJsonBody } from "../../../../core/web/json_body.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const handler = {
  async POST(c: Context<AppEnv>) {
    const id = c.req.param("id") ?? "";
    if (!UUID.test(id)) {
      return refuse(404, "not_found", "No page with this id on this site");
    }
    const parsed = contract.body.safeParse(await readJsonBody(c.req.raw));
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => ({
        path: ["body", ...issue.path.map(String)].join("."),
        message: issue.message,
      }));
      return refuse(
        400,
        "invalid_request",
        `Invalid ${issues[0].path}: ${issues[0].message}`,
        { issues },
      );
    }
    const ctx = await adminContext(c);
    // The page permission is the model's update, checked by the lifecycle save itself.
    const changed = await changePageAddress(ctx.lifecycle, {
      group_id: id.toLowerCase(),
      locale: parsed.data.locale,
      address: parsed.data.address,
      expected_current_version_id: parsed.data.expected_current_version_id,
    });
    if (!changed.ok) return refuseWith({ ...changed });
    return c.json({
      ...writtenAnswer(changed.result),
      pending_address: changed.pending_address,
    });
  },
};
