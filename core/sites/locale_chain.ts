// The languages a read tries in order under the site's language-fallback setting.
import type { SettingsDocument } from "./settings_documents.ts";

/** The languages to try for a read in `requested`, in order, under the site's policy. */
export function localeChain(
  policy: SettingsDocument<"language-fallback">,
  requested: string,
  defaultLanguage: string,
): string[] {
  if (policy.policy === "strict") return [requested];
  const chain = [
    requested,
    ...(policy.chains[requested] ?? []),
    defaultLanguage,
  ];
  return [...new Set(chain)];
}
