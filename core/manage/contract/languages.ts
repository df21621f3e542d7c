// Contract of the language routes: list the site's languages and add one.
import { z } from "zod";
import { LANGUAGE_CODE_PATTERN } from "../../sites/languages.ts";
import { operation } from "./operation.ts";

/** A language code such as `en` or `de-AT`. */
export const languageCode = z.string().regex(
  LANGUAGE_CODE_PATTERN,
  "expected a language code such as en or de-AT",
);

/** One language of the site. */
export const language = z.strictObject({
  code: z.string(),
  is_default: z.boolean(),
  position: z.int().min(0).describe("Order in the admin; the default is 0"),
});

/** `GET /languages`. */
export const listLanguages = operation({
  name: "list-languages",
  description:
    "The first language is the default; entries read in another language fall back as the site's language-fallback settings say.",
  method: "GET",
  path: "/languages",
  summary: "List the site's languages, default first",
  tag: "languages",
  scope: "content:read",
  key: null,
  status: 200,
  answer: z.strictObject({
    data: z.array(language),
    default_language: z.string(),
  }),
});

/** `POST /languages`. */
export const addLanguage = operation({
  name: "add-language",
  description:
    "The new language comes last. Existing entries do not get it automatically: add it to an entry with `POST /entries/{id}/locales`.",
  method: "POST",
  path: "/languages",
  summary: "Add a language to the site, after the existing ones",
  tag: "languages",
  scope: "settings:write",
  key: { retention: "short", settle: "prove" },
  status: 201,
  body: z.strictObject({ code: languageCode }),
  answer: language,
  errors: ["locale_exists"],
});
