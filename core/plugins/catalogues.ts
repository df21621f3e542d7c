// Plugin catalogues (spec 1 parts 4.3, 5.10, 8): reads every configured catalogue page by page through the guarded fetch, within its limits.
import { z } from "zod";
import { personHolding } from "../access/person_authority.ts";
import type { Db } from "../db/database.ts";
import type { PluginCall } from "./calls.ts";
import { checkDestination, type OutboundPolicy } from "./destination.ts";
import type { PluginAdminRefusal } from "./installations.ts";
import { answerJson, type OutboundRefusalCode } from "./outbound.ts";
import { LIMITS } from "./protocol.ts";

const LIMIT = LIMITS.catalogues;

/** One plugin a catalogue offers; closed, so an unknown key refuses the page. */
export const catalogueEntrySchema = z.strictObject({
  name: z.string().trim().min(1).max(80),
  description: z.string().max(500).optional(),
  /** Checked against the outbound rules too: a refused one leaves the catalogue out. */
  manifest_url: z.string().min(1).max(2048),
});

/** One page of a catalogue: its entries and the next page's URL on the same origin. */
export const cataloguePageSchema = z.strictObject({
  entries: z.array(catalogueEntrySchema).max(LIMIT.max_entries_per_page),
  next: z.string().min(1).max(2048).nullable().optional(),
});

/** Why a catalogue is left out: an outbound refusal of a page, or a catalogue rule. */
export type CatalogueReason =
  | OutboundRefusalCode
  | "catalogue_page_invalid"
  | "catalogue_page_too_large"
  | "catalogue_page_too_many_entries"
  | "catalogue_too_many_entries"
  | "catalogue_too_many_pages"
  | "catalogue_page_repeated"
  | "catalogue_entry_refused";

/** A discovered plugin, with the catalogue that listed it. */
export interface CatalogueEntry {
  catalogue: string;
  name: string;
  description: string | null;
  manifest_url: string;
}

/** A catalogue left out whole, with its reason. */
export interface LeftOutCatalogue {
  catalogue: string;
  reason: CatalogueReason;
  message: string;
}

/** What {@linkcode discoverCatalogues} answers. */
export interface Discovered {
  entries: CatalogueEntry[];
  left_out: LeftOutCatalogue[];
}

/** How to read catalogues: the guarded call and the policy its entries are judged by. */
export interface CatalogueReader {
  call: PluginCall;
  /** The same outbound policy as the call's (development origins). */
  policy: OutboundPolicy;
}

/** The context of {@linkcode discoverCatalogues}: the acting person and the configured catalogues. */
export interface CatalogueContext extends CatalogueReader {
  db: Db;
  siteId: string;
  userId: string;
  /** From `PLUGIN_CATALOGUES` (at most 4, checked at start). */
  catalogues: readonly string[];
}

type Read = { ok: true; entries: CatalogueEntry[] } | {
  ok: false;
  reason: CatalogueReason;
  message: string;
};

function leftOut(reason: CatalogueReason, message: string): Read {
  return { ok: false, reason, message };
}

/**
 * Lists the entries of every configured catalogue for a person holding `site:plugins`;
 * a catalogue that breaks a limit or rule is left out whole with its reason.
 */
export async function discoverCatalogues(
  ctx: CatalogueContext,
): Promise<({ ok: true } & Discovered) | PluginAdminRefusal> {
  const held = await personHolding(ctx.db, {
    siteId: ctx.siteId,
    personId: ctx.userId,
    permission: "site:plugins",
  });
  if (!held.ok) {
    return held.code === "missing_permission"
      ? {
        ok: false,
        code: "missing_permission",
        message: "Discovering plugins needs the site:plugins permission",
      }
      : {
        ok: false,
        code: "site_access_denied",
        message: "No access to this site",
      };
  }
  // A misconfigured list is a bug of the start-up check, not a remote fault.
  if (ctx.catalogues.length > LIMIT.max_catalogues) {
    throw new Error(
      `Cannot read ${ctx.catalogues.length} catalogues: at most ${LIMIT.max_catalogues} are allowed`,
    );
  }
  const reads = await Promise.all(
    ctx.catalogues.map((url) => readCatalogue(url, ctx)),
  );
  const found: Discovered = { entries: [], left_out: [] };
  reads.forEach((read, i) => {
    if (read.ok) found.entries.push(...read.entries);
    else {
      found.left_out.push({
        catalogue: ctx.catalogues[i],
        reason: read.reason,
        message: read.message,
      });
    }
  });
  return { ok: true, ...found };
}

/** Reads one catalogue, following `next` up to 5 pages; any broken rule leaves it out whole. */
export async function readCatalogue(
  catalogue: string,
  reader: CatalogueReader,
): Promise<Read> {
  const entries: CatalogueEntry[] = [];
  const seen = new Set<string>();
  let url: string | null = normalised(catalogue);
  for (let page = 1; url !== null; page++) {
    if (page > LIMIT.max_pages) {
      return leftOut(
        "catalogue_too_many_pages",
        `The catalogue has more than ${LIMIT.max_pages} pages`,
      );
    }
    if (seen.has(url)) {
      return leftOut(
        "catalogue_page_repeated",
        `Page ${page} repeats an earlier page's URL`,
      );
    }
    seen.add(url);
    const read = await readPage(url, page, reader);
    if (!read.ok) return read;
    for (const entry of read.page.entries) {
      const refused = checkDestination(entry.manifest_url, reader.policy);
      if (!refused.ok) {
        return leftOut(
          "catalogue_entry_refused",
          `The manifest URL of "${entry.name}" on page ${page} is refused: ${refused.message}`,
        );
      }
      entries.push({
        catalogue,
        name: entry.name,
        description: entry.description ?? null,
        manifest_url: entry.manifest_url,
      });
    }
    if (entries.length > LIMIT.max_entries) {
      return leftOut(
        "catalogue_too_many_entries",
        `The catalogue lists more than ${LIMIT.max_entries} entries`,
      );
    }
    const next = read.page.next ?? null;
    if (next !== null && !sameOrigin(next, catalogue)) {
      return leftOut(
        "catalogue_page_invalid",
        `Page ${page} names a next page off the catalogue's origin`,
      );
    }
    url = next === null ? null : normalised(next);
  }
  return { ok: true, entries };
}

async function readPage(
  url: string,
  page: number,
  reader: CatalogueReader,
): Promise<
  { ok: true; page: z.output<typeof cataloguePageSchema> } | {
    ok: false;
    reason: CatalogueReason;
    message: string;
  }
> {
  const answer = await reader.call({
    url,
    method: "GET",
    purpose: "catalogue",
  });
  if (!answer.ok) {
    return answer.overByteLimit
      ? {
        ok: false,
        reason: "catalogue_page_too_large",
        message: `Page ${page} is larger than ${LIMIT.max_page_bytes} bytes`,
      }
      : {
        ok: false,
        reason: answer.code,
        message: `Page ${page}: ${answer.message}`,
      };
  }
  if (answer.status < 200 || answer.status > 299) {
    return {
      ok: false,
      reason: "plugin_unreachable",
      message: `Page ${page} answered ${answer.status}`,
    };
  }
  const json = answerJson(answer);
  if (!json.ok) {
    return {
      ok: false,
      reason: "catalogue_page_invalid",
      message: `Page ${page} is not JSON`,
    };
  }
  const entries = (json.json as { entries?: unknown } | null)?.entries;
  // Counted before the schema so the reason names the limit, not a shape.
  if (Array.isArray(entries) && entries.length > LIMIT.max_entries_per_page) {
    return {
      ok: false,
      reason: "catalogue_page_too_many_entries",
      message:
        `Page ${page} lists more than ${LIMIT.max_entries_per_page} entries`,
    };
  }
  const parsed = cataloguePageSchema.safeParse(json.json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      reason: "catalogue_page_invalid",
      message: `Page ${page} does not match the catalogue schema: ${
        issue.path.map(String).join(".") || "(page)"
      }: ${issue.message}`,
    };
  }
  return { ok: true, page: parsed.data };
}

/** One spelling per page URL, so a repeat is seen however it is written. */
function normalised(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}

function sameOrigin(next: string, catalogue: string): boolean {
  try {
    return new URL(next).origin === new URL(catalogue).origin;
  } catch {
    return false;
  }
}
