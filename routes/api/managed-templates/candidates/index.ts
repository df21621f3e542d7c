// GET /api/managed-templates/candidates (site:infra): the site's template candidates, newest
// first. POST (site:deploy): uploads `{ manifest, source }`; the candidate is checked, built and
// stored once, or refused naming the rule or the failed check (spec 3 part 4.8 rule 1).
import type { Context } from "hono";
import { z } from "zod";
import {
  listCandidates,
  storeCandidate,
} from "../../../../core/templates/candidates.ts";
import {
  refuseTemplate,
  templateContext,
} from "../../../../core/templates/http.ts";
import type { RouteConfig } from "../../../../core/web/manifest.ts";
import type { AppEnv } from "../../../../core/web/env.ts";
import { refuse } from "../../../../core/web/errors.ts";
import { requireContentType } from "../../../../core/web/json_body.ts";
import { checkJsonDepth } from "../../../../core/web/request_text.ts";

/** The whole upload: 4 MiB of source and room for the manifest and JSON escapes. */
export const config: RouteConfig = { bodyLimit: 6 * 1024 * 1024 };

const upload = z.strictObject({
  manifest: z.unknown(),
  source: z.record(z.string(), z.string()),
});

export const handler = {
  async GET(c: Context<AppEnv>) {
    const ctx = await templateContext(c, ["site:infra"]);
    return c.json({ data: await listCandidates(ctx) });
  },
  async POST(c: Context<AppEnv>) {
    const ctx = await templateContext(c, ["site:deploy"]);
    requireContentType(c.req.raw.headers);
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(
        await c.req.arrayBuffer(),
      );
    } catch {
      return refuse(400, "invalid_request", "Request body must be UTF-8 JSON");
    }
    checkJsonDepth(text);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return refuse(
        400,
        "invalid_request",
        "Request body must be a JSON object",
      );
    }
    // Lone surrogates are left to the source rules, which name them; the edge check would not.
    const parsed = upload.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return refuse(
        400,
        "invalid_request",
        `Invalid body.${issue.path.join(".")}: ${issue.message}`,
      );
    }
    const source = (value as { source: Record<string, string> }).source;
    const stored = await storeCandidate(ctx, {
      manifest: parsed.data.manifest,
      source: Object.fromEntries(Object.entries(source)),
      origin: "upload",
    });
    if (!stored.ok) refuseTemplate(stored);
    return c.json(
      { data: stored.candidate, report: stored.report },
      stored.created ? 201 : 200,
    );
  },
};
