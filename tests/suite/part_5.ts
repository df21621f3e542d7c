// One part of `deno task test` (parts.ts says why the suite runs in parts).
import { loadPart } from "./parts.ts";

await loadPart(import.meta.url);
