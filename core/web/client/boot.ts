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
    const module = await import(payload.chunks[name]);
    hydrate(h(module.default.component, props), element);
  }
}
