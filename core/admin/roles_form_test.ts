// The role form round-trips a permission document: matrix rows, system permissions, limits.
import { deepEqual } from "node:assert/strict";
import { matrixRows, permissionsFromForm } from "./roles_form.ts";

const POSTS = "11111111-1111-4111-8111-111111111111";

Deno.test("permissionsFromForm reads the matrix, field limits and language limits; empty limits mean every field and language", () => {
  const form = {
    "m.*": "read",
    [`m.${POSTS}`]: ["create", "update", "publish"],
    [`fr.${POSTS}`]: "title, body  slug",
    [`fw.${POSTS}`]: "",
    "fr.*": "",
    s: ["media:upload", "data:export"],
    "l.publish": ["en"],
    "l.read": [],
    name: "Writer",
  };
  deepEqual(permissionsFromForm(form, [POSTS]), {
    models: { "*": ["read"], [POSTS]: ["create", "update", "publish"] },
    system: ["media:upload", "data:export"],
    fields: { [POSTS]: { read: ["title", "body", "slug"] } },
    languages: { publish: ["en"] },
  });
  deepEqual(permissionsFromForm({}, [POSTS]), { models: {}, system: [] });
});

Deno.test("matrixRows puts All models first and shows each model's grants and limits", () => {
  const rows = matrixRows(
    {
      models: { "*": ["read"], [POSTS]: ["update"] },
      system: [],
      fields: { [POSTS]: { read: ["title"], write: ["title"] } },
    },
    [{ id: POSTS, name: "Posts" }],
  );
  deepEqual(rows, [
    { key: "*", label: "All models", actions: ["read"], read: "", write: "" },
    {
      key: POSTS,
      label: "Posts",
      actions: ["update"],
      read: "title",
      write: "title",
    },
  ]);
});
