// The npm package as a front-end developer gets it: built with tsc, packed with `npm pack`,
// installed offline from the tarball, model types written by its own command, and a front-end
// file type-checked with tsc and run on Node against the demo site on 127.0.0.1 (PUB-043).
import { deepEqual, equal, ok } from "node:assert/strict";
import { buildClient, TYPESCRIPT } from "../../core/public/client_build.ts";
import { serveDemo } from "./support.ts";
import { ON_POSTGRES } from "../support/db.ts";

const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

async function run(
  cmd: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(cmd, {
    args,
    cwd: options.cwd,
    env: { NO_COLOR: "1", ...options.env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

/** The front-end file: lists, a single post, search and sync pages, typed by the site's models. */
function frontEnd(url: string): string {
  return `import { createClient, StaveError } from "@stave/client";
import type { PostsItem, StaveModels } from "./stave-models.js";

const client = createClient<StaveModels>({ url: ${JSON.stringify(url)} });

const guides = await client.list("posts", {
  filter: { category: "guide" },
  sort: "-published_on",
  limit: 5,
  expand: ["author"],
});
const first: PostsItem<"author"> = guides.data[0];
const title: string | null = first.fields.title;
const category: "news" | "guide" | "release" | "opinion" | null = first.fields.category;
const author: string | null = first.relations.author;
const tags: string[] = first.relations.tags ?? [];
const authorName = first.expanded.author.data[0]?.fields.name;

const single = await client.single("posts", first.slug);
const coverUrl: string | undefined = single.data.media.cover?.url;

const found = await client.search("edge");
const hitTitles: string[] = found.data.map((hit) => hit.title);

let synced = 0;
let checkpoint: string | null = null;
for await (const page of client.sync({ model: "posts", limit: 20 })) {
  synced += page.data.length;
  for (const post of page.data) {
    const minutes: number | null = post.fields.reading_minutes;
    if (minutes !== null && minutes < 1) throw new Error("minutes");
  }
  checkpoint = page.checkpoint;
}

let code = "";
try {
  await client.single("posts", "no-such-post");
} catch (error) {
  if (error instanceof StaveError) code = error.code;
}

console.log(JSON.stringify({
  title,
  category,
  author,
  tags,
  authorName,
  singleId: single.data.id,
  coverUrl: coverUrl ?? null,
  hitTitles,
  synced,
  checkpoint: checkpoint !== null,
  code,
}));
`;
}

/** Mistakes the types must refuse: each line below an expected error fails tsc if it compiles. */
const MISTAKES = `import { createClient } from "@stave/client";
import type { StaveModels } from "./stave-models.js";

const client = createClient<StaveModels>({ url: "https://example.com/v1" });
const post = (await client.list("posts")).data[0];
// @ts-expect-error a field the model does not have
post.fields.subtitle;
// @ts-expect-error a select field is the union of its options
const category: "draft" = post.fields.category;
// @ts-expect-error a to-one relation is an id or null, never a list
const authors: string[] = post.relations.author;
// @ts-expect-error only relation fields expand
await client.list("posts", { expand: ["title"] });
// @ts-expect-error a model the site does not have
await client.list("comments");
// @ts-expect-error sort takes the model's fields
await client.list("posts", { sort: "-nope" });
// @ts-expect-error expanded exists only for the fields asked for
post.expanded.author.data;
export { authors, category };
`;

Deno.test({
  name:
    "npm pack of clients/js installs offline from the tarball; stave-client types writes the demo's models; a front-end file reading posts, a post, search results and sync pages type-checks with tsc and runs on Node with real values",
  // npx fetches typescript from npm on first use; later runs use its cache.
  sanitizeResources: false,
  // The package and its types do not change with the engine (the answers it reads are checked
  // against the public document on both): it runs in the embedded run only.
  ignore: ON_POSTGRES,
  async fn() {
    const demo = await serveDemo();
    const dir = await Deno.makeTempDir({ prefix: "stave-client-pack-" });
    try {
      const pkg = `${dir}/package`;
      await Deno.mkdir(`${pkg}/src`, { recursive: true });
      for (const file of ["package.json", "tsconfig.json", "README.md"]) {
        await Deno.copyFile(`${root}/clients/js/${file}`, `${pkg}/${file}`);
      }
      for await (const entry of Deno.readDir(`${root}/clients/js/src`)) {
        await Deno.copyFile(
          `${root}/clients/js/src/${entry.name}`,
          `${pkg}/src/${entry.name}`,
        );
      }
      const built = await buildClient(pkg);
      ok(built.includes("mod.js") && built.includes("mod.d.ts"));
      const packed = await run("npm", [
        "pack",
        "--json",
        "--pack-destination",
        dir,
      ], {
        cwd: pkg,
      });
      equal(packed.code, 0, packed.stderr);
      const [info] = JSON.parse(packed.stdout) as {
        filename: string;
        files: { path: string }[];
      }[];
      const shipped = info.files.map((f) => f.path).sort();
      ok(shipped.includes("dist/mod.js") && shipped.includes("dist/bin.js"));
      ok(!shipped.some((p) => p.startsWith("src/")), shipped.join(", "));

      const app = `${dir}/app`;
      await Deno.mkdir(`${app}/src`, { recursive: true });
      await Deno.writeTextFile(
        `${app}/package.json`,
        JSON.stringify({ name: "front-end", private: true, type: "module" }),
      );
      const installed = await run("npm", [
        "install",
        "--offline",
        "--no-audit",
        "--no-fund",
        `${dir}/${info.filename}`,
      ], { cwd: app });
      equal(installed.code, 0, installed.stderr);
      const manifest = JSON.parse(
        await Deno.readTextFile(`${app}/package.json`),
      );
      ok(manifest.dependencies["@stave/client"]);

      const types = await run("npx", [
        "--no-install",
        "stave-client",
        "types",
        "--url",
        demo.url,
        "--out",
        "src/stave-models.d.ts",
      ], { cwd: app, env: { STAVE_SITE_TOKEN: demo.token } });
      equal(types.code, 0, types.stderr);
      ok(
        !types.stdout.includes(demo.token) &&
          !types.stderr.includes(demo.token),
      );
      const models = await Deno.readTextFile(`${app}/src/stave-models.d.ts`);
      ok(models.includes(`from "@stave/client"`));

      await Deno.writeTextFile(`${app}/src/app.ts`, frontEnd(demo.url));
      await Deno.writeTextFile(`${app}/src/mistakes.ts`, MISTAKES);
      await Deno.writeTextFile(
        `${app}/tsconfig.json`,
        JSON.stringify({
          compilerOptions: {
            target: "es2022",
            module: "nodenext",
            moduleResolution: "nodenext",
            lib: ["es2022", "dom"],
            types: [],
            strict: true,
            outDir: "out",
          },
          include: ["src"],
        }),
      );
      const checked = await run("npx", [
        "-y",
        "-p",
        TYPESCRIPT,
        "tsc",
        "-p",
        ".",
      ], {
        cwd: app,
      });
      equal(checked.code, 0, checked.stdout + checked.stderr);

      const ran = await run("node", ["out/app.js"], { cwd: app });
      equal(ran.code, 0, ran.stderr);
      const seen = JSON.parse(ran.stdout);
      equal(seen.category, "guide");
      equal(typeof seen.title, "string");
      ok(seen.tags.length > 0);
      equal(typeof seen.author, "string");
      equal(typeof seen.authorName, "string");
      ok(
        seen.hitTitles.includes("Caching at the edge without stale pages"),
        seen.hitTitles.join(", "),
      );
      ok(seen.synced > 20, String(seen.synced));
      equal(seen.checkpoint, true);
      equal(seen.code, "not_found");
      // The same post the API serves, as a direct request reads it.
      const direct = await fetch(
        `${demo.url}/posts?filter[category]=guide&sort=-published_on&limit=1`,
      );
      const body = await direct.json();
      equal(body.data[0].fields.title, seen.title);
      deepEqual(body.data[0].relations.tags, seen.tags);

      // Without the generated types, a mistake in MISTAKES would compile: prove tsc refuses them.
      await Deno.writeTextFile(
        `${app}/src/mistakes.ts`,
        MISTAKES.replaceAll("// @ts-expect-error", "//"),
      );
      const refused = await run("npx", [
        "-y",
        "-p",
        TYPESCRIPT,
        "tsc",
        "-p",
        ".",
        "--noEmit",
      ], {
        cwd: app,
      });
      equal(refused.code, 2);
      equal(
        (refused.stdout.match(/src\/mistakes\.ts\(\d+,\d+\): error/g) ?? [])
          .length,
        7,
        refused.stdout,
      );
    } finally {
      await demo.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
