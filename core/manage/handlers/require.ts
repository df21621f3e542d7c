// The command-level permission check handlers share: decide() on the re-read authority, refused as 403.
import type { AccessRequest } from "../../access/decide.ts";
import { decide } from "../../access/decide.ts";
import { refuse } from "../../web/errors.ts";
import type { ManageContext } from "../handler.ts";

/** Refuses with the decision's code unless the credential's authority allows `request` now. */
export function requireAllowed(
  ctx: ManageContext,
  request: AccessRequest,
): void {
  const decision = decide(ctx.authority, request);
  if (decision.ok) return;
  const { code, ...details } = decision as Exclude<
    typeof decision,
    { ok: true }
  >;
  delete (details as { ok?: unknown }).ok;
  refuse(
    403,
    code,
    code === "missing_permission"
      ? `Missing permission: ${
        (details as { missing: string[] }).missing.join(", ")
      }`
      : `Not allowed: ${code}`,
    details,
  );
}
