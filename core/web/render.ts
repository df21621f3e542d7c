// Renders a page component inside its layouts and the app shell, then adds island hydration.
import { type ComponentType, h, type VNode } from "preact";
import { renderToString } from "preact-render-to-string";
import { assertPlainJson, IslandContext } from "./island.ts";
import type { IslandAssets } from "./islands_build.ts";
import type { LayoutProps, PageProps } from "./manifest.ts";

/** Options of {@link renderPage}. */
export interface RenderPageOptions {
  component: ComponentType<PageProps<never>>;
  props: PageProps;
  layouts: ComponentType<LayoutProps>[];
  app: ComponentType<LayoutProps> | null;
  assets: IslandAssets;
}

/** Answers the full HTML document; pages that use no island get no script at all. */
export function renderPage(options: RenderPageOptions): string {
  const chunks: Record<string, string> = {};
  const props: unknown[] = [];
  const collector = {
    inside: false,
    record(name: string, value: unknown): number {
      assertPlainJson(value, name);
      const chunk = options.assets.chunks[name];
      if (!chunk) {
        throw new Error(
          `Island "${name}" has no bundle: run deno task gen and restart`,
        );
      }
      chunks[name] = chunk;
      props.push(value);
      return props.length - 1;
    },
  };
  // deno-lint-ignore no-explicit-any
  let tree: VNode<any> = h(
    options.component as ComponentType<PageProps>,
    options.props,
  );
  const wrappers = [...options.layouts].reverse().concat(
    options.app ? [options.app] : [],
  );
  for (const wrapper of wrappers) {
    tree = h(wrapper, { ...options.props, children: tree });
  }
  let html = renderToString(
    h(IslandContext.Provider, { value: collector }, tree),
  );
  if (props.length > 0) {
    const payload = JSON.stringify({ chunks, props }).replaceAll(
      "<",
      "\\u003c",
    );
    const scripts =
      `<script type="application/json" id="__stave_islands">${payload}</script>` +
      `<script type="module" src="${options.assets.boot}"></script>`;
    const end = html.lastIndexOf("</body>");
    html = end === -1
      ? html + scripts
      : html.slice(0, end) + scripts + html.slice(end);
  }
  return `<!DOCTYPE html>${html}`;
}
