// Names operations where a text names a route: "GET /models" reads "list_models" to an agent and "list-models" at a terminal.
import { type AnyOperation, OPERATIONS } from "./contract/mod.ts";

const ROUTE = /\b(GET|POST|PUT|DELETE) (\/[A-Za-z0-9_{}\/-]*[A-Za-z0-9_}-])/g;

/** Each route in `text` that an operation answers, written as that operation's tool (`snake`) or command (`kebab`) name. */
export function operationNames(
  text: string,
  style: "snake" | "kebab",
  operations: readonly AnyOperation[] = OPERATIONS,
): string {
  return text.replace(ROUTE, (whole, method: string, path: string) => {
    const found = operations.find((operation) =>
      operation.method === method &&
      new RegExp(`^${operation.path.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(
        path,
      )
    );
    if (!found) return whole;
    return style === "snake" ? found.name.replaceAll("-", "_") : found.name;
  });
}
