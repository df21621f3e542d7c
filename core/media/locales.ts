// The language fallback chain of every site language, for choosing a media original and alt text.
import type { Db } from "../db/database.ts";
import { readLocalePlan } from "../public/projection.ts";
import { localeChain } from "../sites/locale_chain.ts";

/** Language -> the languages to try in order (itself first, the default last). */
export async function localeChainsOf(
  db: Db,
  siteId: string,
): Promise<Map<string, string[]>> {
  const plan = await readLocalePlan(db, siteId);
  const chains = new Map<string, string[]>();
  if (!plan) return chains;
  for (const lang of plan.languages) {
    chains.set(lang, localeChain(plan.policy, lang, plan.defaultLanguage));
  }
  return chains;
}
