// The admin's routes as routes.gen.ts lists them, for tests that walk every one.
import { manifest } from "../../routes.gen.ts";

/** The routes an admin's session reaches: the admin pages and their JSON helpers (not the plugin API, which plugins call). */
export function adminPatterns(): string[] {
  return manifest.routes.map((r) => r.pattern).filter((p) =>
    p === "/admin" || p.startsWith("/admin/") || p === "/api/plugins" ||
    p.startsWith("/api/plugins/") || p.startsWith("/api/forms/")
  );
}
