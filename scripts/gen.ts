// deno task gen: writes routes.gen.ts (and routes_public.gen.ts, the public app's part of it)
// from the routes/ and islands/ folders, and the page document's JSON Schema from
// core/pages/vocabulary.ts.
import { generateManifest } from "../core/web/manifest_gen.ts";
import { inPublicApp } from "../core/web/public_app_paths.ts";
import { pageDocumentSchemaText } from "../core/pages/schema.ts";

const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
await Deno.writeTextFile(
  `${root}/routes.gen.ts`,
  await generateManifest({ root }),
);
console.log("Wrote routes.gen.ts");
await Deno.writeTextFile(
  `${root}/routes_public.gen.ts`,
  await generateManifest({ root, routesOf: inPublicApp }),
);
console.log("Wrote routes_public.gen.ts");
await Deno.writeTextFile(
  `${root}/static/page-document-v3.schema.json`,
  pageDocumentSchemaText(),
);
console.log("Wrote static/page-document-v3.schema.json");
