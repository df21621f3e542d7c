// The built-in template: every section type of the page contract, posts, search and error
// pages, one stylesheet and one small script (the search page's suggestions).
import { BUILT_IN_REGIONS } from "../../../../core/templates/builtin_regions.ts";
import type { InProcessTemplate, TemplateAsset } from "../mod.ts";
import { drawBuiltIn } from "./draw.tsx";

async function hashed(file: string, type: string): Promise<TemplateAsset> {
  const body = await Deno.readTextFile(new URL(file, import.meta.url));
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body)),
  );
  const hex = [...digest.slice(0, 6)].map((b) =>
    b.toString(16).padStart(2, "0")
  ).join("");
  const [name, ext] = file.split(".");
  return { name: `${name}.${hex}.${ext}`, type, body };
}

const css = await hashed("style.css", "text/css; charset=utf-8");
const search = await hashed("search.js", "text/javascript; charset=utf-8");
const assets = { css: `/_site/${css.name}`, search: `/_site/${search.name}` };

/** The built-in template, the renderer's one implementation of {@link Template}. */
export const builtInTemplate: InProcessTemplate = {
  name: "built-in",
  routableModels: ["pages", "posts"],
  regions: BUILT_IN_REGIONS,
  assets: [css, search],
  ...drawBuiltIn(assets),
};
