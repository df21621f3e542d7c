// deno task gen:plugin: writes generated/manifest-v1.schema.json and generated/protocol-v1.schema.json from core/plugins/.
import { generatePluginSchemaFiles } from "../core/plugins/schema_files.ts";

const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
for (const file of generatePluginSchemaFiles()) {
  await Deno.writeTextFile(`${root}/${file.path}`, file.text);
  console.log(`Wrote ${file.path}`);
}
