// deno task gen: writes routes.gen.ts from the routes/ and islands/ folders, and the page
// document's JSON Schema from core/pages/vocabulary.ts.
import { generateManifest } from "../core/web/manifest_gen.ts";
import { pageDocumentSchemaText } from "../core/pages/schema.ts";

const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const text = await generateManifest({ root });
await Deno.writeTextFile(`${root}/routes.gen.ts`, text);
console.log("Wrote routes.gen.ts");
await Deno.writeTextFile(
  `${root}/static/page-document-v3.schema.json`,
  pageDocumentSchemaText(),
);
console.log("Wrote static/page-document-v3.schema.json");
