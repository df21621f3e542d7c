// `deno task bench:pages`: validates a 40-section page document (the budget is under 1 ms).
import { parsePageDocument } from "../core/pages/mod.ts";
import { exampleHomePage } from "../core/pages/example.ts";

const base = exampleHomePage("en");
const sections = [];
const props: Record<string, Record<string, unknown>> = {};
for (let i = 0; i < 40; i++) {
  const s = base.sections[i % base.sections.length];
  sections.push({ ...s, id: `s${i}` });
  props[`s${i}`] = base.props[s.id];
}
const doc = { format: 2, sections, props };

Deno.bench("parsePageDocument: 40 sections", () => {
  const result = parsePageDocument(doc);
  if (!result.ok) throw new Error(JSON.stringify(result.error));
});
