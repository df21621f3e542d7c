// The active release of this site's host as a Template: the deploy service names it (read at most
// every 30 seconds), and its compiled code draws each view in the sandbox, a Deno subprocess that
// may read only a directory holding that code. Without an active release, or when the deploy
// service cannot say, the built-in template draws.
import type { ReleaseSeo } from "../../core/templates/release_seo.ts";
import { drawInSandbox } from "../templates/pipeline.ts";
import type { Clock } from "./reuse.ts";
import type {
  ErrorView,
  PageView,
  PostsView,
  PostView,
  SearchView,
  Template,
  TemplateAsset,
} from "./template/mod.ts";

/** A release as the deploy service answers it. */
interface ActiveRelease {
  number: number;
  origin: string;
  digest: string;
  files: Record<string, string>;
  /** SEO defaults the site changed when the release was prepared (DLV-014). */
  seo?: ReleaseSeo;
}

/** Options of {@link releaseTemplate}. */
export interface ReleaseTemplateOptions {
  url: string;
  key: string;
  /** The host whose active release is drawn (the site's address). */
  host: string;
  fallback: Template;
  workRoot: string;
  clock?: Clock;
  fetch?: typeof fetch;
}

const REUSE_MS = 30_000;

const TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
  json: "application/json",
  txt: "text/plain; charset=utf-8",
};

/** The Template that draws the host's active release. */
export function releaseTemplate(options: ReleaseTemplateOptions): Template {
  const clock = options.clock ?? Date.now;
  let kept: { at: number; release: ActiveRelease | null } | null = null;

  async function active(): Promise<ActiveRelease | null> {
    const now = clock();
    if (kept && now - kept.at < REUSE_MS) return kept.release;
    try {
      const res = await (options.fetch ?? fetch)(
        `${options.url}/releases/active?host=${
          encodeURIComponent(options.host)
        }`,
        {
          headers: { authorization: `Bearer ${options.key}` },
          signal: AbortSignal.timeout(5_000),
        },
      );
      const release = res.status === 200
        ? await res.json() as ActiveRelease
        : (await res.body?.cancel(), null);
      // Only an answer naming this host's origin counts: a release is pinned to its address.
      const pinned =
        release && new URL(release.origin).hostname === options.host
          ? release
          : null;
      kept = { at: now, release: pinned };
      return pinned;
    } catch {
      // The deploy service is away: keep drawing what was active, or the built-in template.
      return kept?.release ?? null;
    }
  }

  async function draw(
    kind: "page" | "post" | "posts" | "search" | "error",
    view: PageView | PostView | PostsView | SearchView | ErrorView,
  ): Promise<string> {
    const release = await active();
    if (!release) {
      return await (options.fallback[kind] as (
        v: typeof view,
      ) => string | Promise<string>)(view);
    }
    // `hrefOf` does not travel as JSON: the sandbox's runner builds it the same way.
    const drawn = await drawInSandbox(
      options.workRoot,
      release.files["template.js"],
      [{
        kind,
        name: kind,
        view: JSON.parse(JSON.stringify(view)),
      }],
    );
    if (!drawn.ok) {
      throw new Error(`Release ${release.number} did not draw: ${drawn.error}`);
    }
    const [result] = drawn.results;
    if (!result.ok) {
      throw new Error(
        `Release ${release.number} did not draw ${kind}: ${result.error}`,
      );
    }
    return result.html;
  }

  return {
    name: "release",
    routableModels: options.fallback.routableModels,
    regions: options.fallback.regions,
    assets: [],
    async generated() {
      return (await active()) !== null;
    },
    drawing: active,
    async seoDefaults() {
      return (await active())?.seo ?? null;
    },
    async asset(path: string): Promise<TemplateAsset | null> {
      const release = await active();
      if (!release) {
        return options.fallback.assets.find((a) => a.name === path) ?? null;
      }
      const body = release.files[`assets/${path}`];
      if (body === undefined) return null;
      return {
        name: path,
        type: TYPES[path.split(".").pop() ?? ""] ?? "text/plain; charset=utf-8",
        body,
      };
    },
    page: (view) => draw("page", view),
    post: (view) => draw("post", view),
    posts: (view) => draw("posts", view),
    search: (view) => draw("search", view),
    // An error page is drawn even when the release cannot draw it.
    error: (view) =>
      draw("error", view).catch(() => options.fallback.error(view)),
  };
}
