// deno task gen:client: writes clients/js/src/api.gen.ts, the JavaScript client's generated types, from core/public.
import {
  buildClientApiSource,
  CLIENT_API_PATH,
} from "../core/public/client_source.ts";

const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
await Deno.writeTextFile(
  `${root}/${CLIENT_API_PATH}`,
  await buildClientApiSource(),
);
console.log(`Wrote ${CLIENT_API_PATH}`);
