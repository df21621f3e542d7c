// This module is browser compatible.
// Marks a component as an island: rendered on the server, hydrated in the browser with its props.
import { type ComponentType, createContext, h } from "preact";
import { useContext } from "preact/hooks";

/** Collects the islands of one server render; absent in the browser. */
export interface IslandCollector {
  /** Records an island's props and answers their index in the page's props list. */
  record(name: string, props: unknown): number;
  /** True while rendering inside another island, whose hydration covers nested ones. */
  inside: boolean;
}

/** Carries the collector through one server render. */
export const IslandContext = createContext<IslandCollector | null>(null);

/** An island component, with what the browser needs to hydrate it. */
export type Island<P> = ComponentType<P> & {
  islandName: string;
  component: ComponentType<P>;
};

/** Wraps `component` so each use renders a hydration marker around it. */
export function island<P extends Record<string, unknown>>(
  name: string,
  component: ComponentType<P>,
): Island<P> {
  function IslandMarker(props: P) {
    const collector = useContext(IslandContext);
    if (!collector || collector.inside) return h(component, props);
    const index = collector.record(name, props);
    return h(
      "x-island",
      { "data-island": name, "data-props": String(index) },
      h(
        IslandContext.Provider,
        { value: { ...collector, inside: true } },
        h(component, props),
      ),
    );
  }
  return Object.assign(IslandMarker, { islandName: name, component });
}

/** Throws naming the first prop path that is not plain JSON. */
export function assertPlainJson(value: unknown, path: string): void {
  if (
    value === null || typeof value === "string" || typeof value === "boolean"
  ) return;
  if (typeof value === "number") {
    if (Number.isFinite(value)) return;
    throw new TypeError(
      `Island prop "${path}" is not plain JSON: expected a finite number`,
    );
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => assertPlainJson(item, `${path}[${i}]`));
    return;
  }
  if (
    typeof value === "object" &&
    Object.getPrototypeOf(value) === Object.prototype
  ) {
    for (
      const [key, item] of Object.entries(value as Record<string, unknown>)
    ) {
      assertPlainJson(item, `${path}.${key}`);
    }
    return;
  }
  const found = typeof value === "object"
    ? (value as object).constructor?.name ?? "object"
    : typeof value;
  throw new TypeError(
    `Island prop "${path}" is not plain JSON: found ${found}`,
  );
}
