import { deepEqual, equal } from "node:assert/strict";
import { settingsFromForm } from "./field_settings.ts";

Deno.test("settingsFromForm() sets and clears a field kind's settings over its JSON, keeping other keys", () => {
  const text = settingsFromForm(
    "text",
    {
      "f.a.settings": "1",
      "f.a.validation.maxLength": "80",
      "f.a.validation.minLength": "",
      "f.a.validation.pattern": "^[A-Z]",
    },
    "f.a",
    { config: "{}", validation: '{"minLength":2}' },
  );
  deepEqual(JSON.parse(text.validation), { maxLength: 80, pattern: "^[A-Z]" });
  const select = settingsFromForm(
    "select",
    {
      "new.settings": "1",
      "new.config.options": "draft\nlive | Live now\n\n",
    },
    "new",
    { config: "{}", validation: "{}" },
  );
  deepEqual(JSON.parse(select.config), {
    options: ["draft", { value: "live", label: "Live now" }],
  });
  const component = settingsFromForm(
    "component",
    {
      "f.c.settings": "1",
      "f.c.config.repeatable": "on",
    },
    "f.c",
    { config: '{"fields":[{"key":"x"}]}', validation: "{}" },
  );
  deepEqual(JSON.parse(component.config), {
    fields: [{ key: "x" }],
    repeatable: true,
  });
  const unchecked = settingsFromForm("number", { "f.n.settings": "1" }, "f.n", {
    config: '{"integer":true}',
    validation: "{}",
  });
  deepEqual(JSON.parse(unchecked.config), { integer: false });
});

Deno.test("settingsFromForm() passes text that is not a number, and JSON that is not an object, on for the model rules to refuse", () => {
  const typed = settingsFromForm(
    "number",
    {
      "f.n.settings": "1",
      "f.n.validation.min": "ten",
    },
    "f.n",
    { config: "{}", validation: "{}" },
  );
  equal(JSON.parse(typed.validation).min, "ten");
  const broken = settingsFromForm(
    "text",
    {
      "f.a.settings": "1",
      "f.a.validation.maxLength": "5",
    },
    "f.a",
    { config: "{}", validation: "{not json" },
  );
  equal(broken.validation, "{not json");
  const untouched = settingsFromForm("text", {}, "f.a", {
    config: "{}",
    validation: '{"maxLength":9}',
  });
  equal(untouched.validation, '{"maxLength":9}');
});
