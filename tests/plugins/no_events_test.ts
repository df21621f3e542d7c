// The Management API and the public read API declare no events of their own: lifecycle
// notifications go only to plugins (spec 1 part 6, spec 2 part 6, spec 3 part 6; AUD-017).
import { deepEqual, equal } from "node:assert/strict";

const root = new URL("../..", import.meta.url);
const EVENTISH = /event|webhook|notification|subscri|callback/i;

Deno.test("neither published OpenAPI document declares webhooks, callbacks or event routes (AUD-017)", async () => {
  for (const file of ["openapi-v1.json", "openapi-public-v1.json"]) {
    const doc = JSON.parse(
      await Deno.readTextFile(new URL(`generated/${file}`, root)),
    );
    equal("webhooks" in doc, false, `${file}: webhooks`);
    deepEqual(
      Object.keys(doc.paths).filter((path) => EVENTISH.test(path)),
      [],
      `${file}: event routes`,
    );
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item as object)) {
        equal(
          "callbacks" in (operation as object),
          false,
          `${file}: ${method} ${path} declares callbacks`,
        );
      }
    }
  }
});
