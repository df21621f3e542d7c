import { equal, rejects } from "node:assert/strict";
import { generateManifest } from "./manifest_gen.ts";

const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

Deno.test("routes.gen.ts is current: run `deno task gen` when this fails", async () => {
  const expected = await generateManifest({ root });
  const committed = await Deno.readTextFile(`${root}/routes.gen.ts`);
  equal(
    committed,
    expected,
    "routes.gen.ts is stale: run `deno task gen` and commit the result",
  );
});

Deno.test("generateManifest() refuses two files answering one pattern", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/routes/a`, { recursive: true });
    await Deno.writeTextFile(`${dir}/routes/a.ts`, "");
    await Deno.writeTextFile(`${dir}/routes/a/index.ts`, "");
    await rejects(generateManifest({ root: dir }), /already answers "\/a"/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
