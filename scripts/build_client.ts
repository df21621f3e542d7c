// deno task build:client: builds clients/js/dist (ES modules and their declarations) with tsc,
// the package `npm pack` and `npm publish` take from clients/js.
import { buildClient } from "../core/public/client_build.ts";

const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const files = await buildClient(`${root}/clients/js`);
console.log(`Built clients/js/dist: ${files.length} files`);
