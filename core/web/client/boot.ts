// This module is browser compatible.
// Hydrates every island of the page from the props and chunk addresses the server embedded.
import { h, hydrate } from "preact";

interface IslandPayload {
  chunks: Record<string, string>;
  props: Record<string, unknown>[];
}

const payloadElement = document.getElementById("__stave_islands");
if (payloadElement?.textContent) {
  const payload = JSON.parse(payloadElement.textContent) as IslandPayload;
  for (const element of document.querySelectorAll<HTMLElement>("x-island")) {
    const name = element.dataset.island!;
    const props = payload.props[Number(element.dataset.props)];
    try {
      const module = await import(payload.chunks[name]);
      hydrate(h(module.default.component, props), element);
    } catch (error) {
      // One island that cannot load must not keep the others from hydrating.
      console.error(`Island "${name}" could not hydrate`, error);
    }
  }
}
