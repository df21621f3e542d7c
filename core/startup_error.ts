// Start-up failures as one line naming the setting and the cause: never a stack trace, never a secret.
import { ConfigError } from "./config.ts";
import { DataFolderInUseError } from "./db/data_lock.ts";

/** A store or listener named by a setting could not be opened; the message is the one line to print. */
export class StartupError extends Error {
  override name = "StartupError";
}

/** The address of a PostgreSQL URL without its user name or password: `host:port/database`. */
export function describeDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const port = parsed.port || "5432";
    const database = decodeURIComponent(parsed.pathname.replace(/^\//, "")) ||
      "(default database)";
    return `${parsed.hostname}:${port}/${database}`;
  } catch {
    return "(unreadable address)";
  }
}

/** The cause of a failure in one line, with any URL credentials and long tails removed. */
export function causeOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split("\n")[0] ?? "")
    .replace(/\/\/[^/@\s]*@/g, "//")
    .replace(/^Migration "unknown" failed: /, "")
    .slice(0, 300) || (error instanceof Error ? error.name : "unknown error");
}

/**
 * The one line to print for a failure during start-up. Known refusals carry their own
 * message; anything else is described by class and first message line only.
 */
export function startupMessage(error: unknown): string {
  if (
    error instanceof ConfigError || error instanceof StartupError ||
    error instanceof DataFolderInUseError
  ) {
    return error.message;
  }
  return `Cannot start: ${causeOf(error)}`;
}
