// GET /: a small landing page pointing people to the admin and developers to the API docs.
import type { Context } from "hono";
import { hostName } from "../core/sites/host.ts";
import { findSiteByDomain } from "../core/sites/site_store.ts";
import type { AppEnv } from "../core/web/env.ts";
import { page, type PageProps } from "../core/web/manifest.ts";

/** What the landing page shows. */
interface LandingData {
  title: string;
  siteName: string | null;
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    const host = hostName(c.req.header("host"));
    const site = host ? await findSiteByDomain(c.var.services.db, host) : null;
    return page({ title: site?.name ?? "Stave", siteName: site?.name ?? null });
  },
};

export default function Landing({ data }: PageProps<LandingData>) {
  return (
    <main class="landing">
      <p class="muted">Stave, a headless CMS</p>
      <h1>{data.siteName ?? "Stave"}</h1>
      <p>
        This address serves content to websites and apps over a public read API.
        Editors write, review and publish in the admin; developers read the API
        documentation.
      </p>
      <p class="links">
        <a class="button" href="/admin">Open the admin</a>
        <a class="button secondary" href="/docs">API documentation</a>
      </p>
    </main>
  );
}
