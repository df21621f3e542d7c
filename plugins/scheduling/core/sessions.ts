// The plugin's own browser sessions (spec 1 part 5.9): made only by a launch exchange, kept in
// the plugin's KV under the SHA-256 of the cookie value, with a CSRF token for every form.
import { sha256Hex, timingSafeEqual } from "../../sdk/mod.ts";

/** The cookie; `__Host-` needs `Secure`, so HTTPS or localhost. */
export const SESSION_COOKIE = "__Host-scheduling";
const SESSION_TTL_MS = 8 * 60 * 60_000;

/** What a launch delegated, as the session keeps it. */
export interface PluginSession {
  installationId: string;
  delegationId: string;
  /** The content action or manage view launched. */
  action: string;
  view: string | null;
  instanceId: string | null;
  groupId: string | null;
  models: { model_id: string; access: string }[];
  email: string;
  capabilities: string[];
  languages: string[];
  csrf: string;
  expiresAt: number;
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-")
    .replaceAll("/", "_").replace(/=+$/, "");
}

/** Opens a session; answers the cookie value (never stored as such). */
export async function openSession(
  kv: Deno.Kv,
  session: Omit<PluginSession, "csrf" | "expiresAt">,
  now: number,
): Promise<string> {
  const value = randomToken();
  const stored: PluginSession = {
    ...session,
    csrf: randomToken(),
    expiresAt: now + SESSION_TTL_MS,
  };
  await kv.set(["scheduling", "session", await sha256Hex(value)], stored, {
    expireIn: SESSION_TTL_MS,
  });
  return value;
}

/** The session a cookie names for this installation, or null. */
export async function readSession(
  kv: Deno.Kv,
  cookieHeader: string | null,
  installationId: string,
  now: number,
): Promise<PluginSession | null> {
  const value = (cookieHeader ?? "").split(/;\s*/).find((c) =>
    c.startsWith(`${SESSION_COOKIE}=`)
  )?.slice(SESSION_COOKIE.length + 1);
  if (!value || value.length > 100) return null;
  const stored = (await kv.get<PluginSession>([
    "scheduling",
    "session",
    await sha256Hex(value),
  ])).value;
  if (!stored || stored.expiresAt <= now) return null;
  return stored.installationId === installationId ? stored : null;
}

/** The `Set-Cookie` header of a new session. */
export function sessionCookie(value: string): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=${
    SESSION_TTL_MS / 1000
  }`;
}

/** Whether a posted CSRF token is the session's. */
export function csrfMatches(session: PluginSession, posted: unknown): boolean {
  return typeof posted === "string" && timingSafeEqual(posted, session.csrf);
}
