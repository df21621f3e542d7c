// deno task gen:builtin: builds the built-in template as a release (every check an upload passes)
// and writes its source, compiled output and report to services/renderer/template/released/.
// Run it after changing the built-in template; a test fails while the release is older.
import { releaseBuiltIn } from "../services/templates/builtin_release.ts";

const released = await releaseBuiltIn();
if (!released.ok) {
  for (const check of released.report.checks) {
    console.error(`${check.name}: ${check.status} ${check.detail.join("; ")}`);
  }
  Deno.exit(1);
}
console.log(`Released the built-in template ${released.record.digest}`);
