// Runs inside the sandbox beside a candidate's compiled `template.js`: reads the calls (JSON) on
// stdin, draws each with the template and writes the answers (JSON) on stdout. Bundled on its
// own by pipeline.ts; it carries no secrets and reaches nothing but its own directory.
// deno-lint-ignore-file no-explicit-any

interface Call {
  kind: "page" | "post" | "posts" | "search" | "error";
  name: string;
  view: Record<string, any>;
}

/** The address of an item, as the renderer builds it (services/renderer/paths.ts). */
function hrefOf(
  item: { model: string; slug: string; locale: string },
  defaultLocale: string,
): string {
  const prefix = item.locale === defaultLocale ? "" : `/${item.locale}`;
  if (item.model === "pages") {
    return item.slug === "home" ? prefix || "/" : `${prefix}/${item.slug}`;
  }
  return `${prefix}/${item.model}/${item.slug}`;
}

const MAX_HTML = 2 * 1024 * 1024;

async function main(): Promise<void> {
  const input = JSON.parse(await new Response(Deno.stdin.readable).text()) as {
    calls: Call[];
  };
  const results: unknown[] = [];
  let template: any;
  try {
    template = (await import("./template.js")).default;
  } catch (e) {
    const error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    console.log(JSON.stringify({ loaded: false, error: error.slice(0, 2000) }));
    return;
  }
  for (const call of input.calls) {
    const site = call.view.site;
    site.hrefOf = (item: any) => hrefOf(item, site.defaultLocale);
    try {
      const draw = template?.[call.kind];
      if (typeof draw !== "function") {
        results.push({
          name: call.name,
          ok: false,
          error: `No ${call.kind}()`,
        });
        continue;
      }
      const html = await draw.call(template, call.view);
      if (typeof html !== "string") {
        results.push({ name: call.name, ok: false, error: "Not a string" });
      } else if (html.length > MAX_HTML) {
        results.push({
          name: call.name,
          ok: false,
          error: "Larger than 2 MiB",
        });
      } else {
        results.push({ name: call.name, ok: true, html });
      }
    } catch (e) {
      const error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      results.push({ name: call.name, ok: false, error: error.slice(0, 2000) });
    }
  }
  console.log(JSON.stringify({ loaded: true, results }));
}

await main();
