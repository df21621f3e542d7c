// Contract of the site route: the site the credential belongs to.
import { z } from "zod";
import { operation } from "./operation.ts";

/** The site a credential belongs to. */
export const siteAnswer = z.strictObject({
  id: z.uuid(),
  slug: z.string(),
  name: z.string(),
  domain: z.string(),
  languages: z.array(z.string()).describe("Language codes, default first"),
  default_language: z.string(),
});

/** `GET /site`. */
export const getSite = operation({
  name: "get-site",
  description:
    "Answers the site the credential was created on: every management call acts on this site only, and no request can name another.",
  method: "GET",
  path: "/site",
  summary: "Read the site this credential belongs to",
  tag: "site",
  scope: "content:read",
  key: null,
  status: 200,
  answer: siteAnswer,
});
