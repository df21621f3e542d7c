// The built-in template's drawing, apart from how its stylesheet and script are found: in process
// (./mod.tsx reads them from this folder) or as a release (the entry the released built-in is
// packed with names them as its own assets; scripts/release_builtin.ts).
import { renderToString } from "preact-render-to-string";
import type { VNode } from "preact";
import type { InProcessTemplate } from "../mod.ts";
import {
  type AssetNames,
  ErrorPage,
  PagePage,
  PostPage,
  PostsPage,
  SearchPage,
} from "./pages.tsx";

function html(node: VNode): string {
  return `<!doctype html>${renderToString(node)}`;
}

/** The built-in template's five drawings, with its assets served at `assets`. */
export function drawBuiltIn(
  assets: AssetNames,
): Pick<InProcessTemplate, "page" | "post" | "posts" | "search" | "error"> {
  return {
    page: (view) => html(<PagePage view={view} assets={assets} />),
    post: (view) => html(<PostPage view={view} assets={assets} />),
    posts: (view) => html(<PostsPage view={view} assets={assets} />),
    search: (view) => html(<SearchPage view={view} assets={assets} />),
    error: (view) => html(<ErrorPage view={view} assets={assets} />),
  };
}
