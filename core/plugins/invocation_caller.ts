// Who runs a plugin operation or meets a policy: the person and the door they came through.
import type { Authority } from "../access/authority.ts";

/** Who runs an operation: a person, directly or through a management credential or MCP. */
export interface InvocationCaller {
  /** The person whose authority applies (a credential's creator). */
  userId: string;
  via: "session" | "management_credential" | "mcp";
  /** The caller's authority now (a credential's: narrowed by its scopes and models). */
  authority: Authority;
}
