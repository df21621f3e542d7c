// deno task gen: writes routes.gen.ts from the routes/ and islands/ folders.
import { generateManifest } from "../core/web/manifest_gen.ts";

const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const text = await generateManifest({ root });
await Deno.writeTextFile(`${root}/routes.gen.ts`, text);
console.log("Wrote routes.gen.ts");
