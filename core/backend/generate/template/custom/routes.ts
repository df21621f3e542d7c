// Your own routes. They are mounted after the generated ones, so they add to the API but never
// replace a generated route, its access rules or its error protection. Regenerating the
// backend keeps this folder only if you copy it over; see README "Customising".
import type { Hono } from "hono";

/** Adds your routes to the app. */
export function customise(_app: Hono): void {
  // Example: _app.get("/api/hello", (c) => c.json({ hello: "world" }));
}
