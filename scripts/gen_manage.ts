// deno task gen:manage: writes generated/openapi-v1.json, the client types, the MCP tool list and svc-manage.mjs from the Management API contract, and generated/openapi-public-v1.json.
import { generateManageFiles } from "../core/manage/generate.ts";

const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
for (const file of await generateManageFiles()) {
  await Deno.writeTextFile(`${root}/${file.path}`, file.text);
  console.log(`Wrote ${file.path}`);
}
