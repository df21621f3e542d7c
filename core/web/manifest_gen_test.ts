import { deepEqual, equal, rejects } from "node:assert/strict";
import { generateManifest } from "./manifest_gen.ts";
import { inPublicApp } from "./public_app_paths.ts";

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

Deno.test("routes_public.gen.ts is current: run `deno task gen` when this fails", async () => {
  const expected = await generateManifest({ root, routesOf: inPublicApp });
  const committed = await Deno.readTextFile(`${root}/routes_public.gen.ts`);
  equal(
    committed,
    expected,
    "routes_public.gen.ts is stale: run `deno task gen` and commit the result",
  );
});

Deno.test("generateManifest() with routesOf lists the routes it accepts, the middlewares above them and the app shell", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/routes/v1/(group)`, { recursive: true });
    await Deno.mkdir(`${dir}/routes/admin`, { recursive: true });
    for (
      const file of [
        "_app.tsx",
        "_middleware.ts",
        "v1/_middleware.ts",
        "v1/(group)/_layout.tsx",
        "v1/(group)/a.ts",
        "admin/_middleware.ts",
        "admin/index.tsx",
      ]
    ) await Deno.writeTextFile(`${dir}/routes/${file}`, "");
    const text = await generateManifest({
      root: dir,
      routesOf: (pattern) => pattern.startsWith("/v1/"),
    });
    const files = [...text.matchAll(/from "\.\/(routes\/[^"]+)"/g)].map((m) =>
      m[1]
    );
    deepEqual(files, [
      "routes/_app.tsx",
      "routes/_middleware.ts",
      "routes/v1/(group)/_layout.tsx",
      "routes/v1/(group)/a.ts",
      "routes/v1/_middleware.ts",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
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
