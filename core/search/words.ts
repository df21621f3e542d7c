// This module is browser compatible.
// Splits text into search words: runs of letters, marks and digits, lowercased (spec 3 part 4.7 item 3).

const SEPARATORS = /[^\p{L}\p{M}\p{N}]+/u;
/** Longer words are cut here, so every lexeme and suffix stays small. */
export const MAX_WORD_LENGTH = 64;

/** The words of `text` in order, normalised (NFKC, lowercase), cut at {@link MAX_WORD_LENGTH}. */
export function searchWords(text: string): string[] {
  return text.normalize("NFKC").toLowerCase().split(SEPARATORS)
    .filter((w) => w.length > 0)
    .map((w) => [...w].slice(0, MAX_WORD_LENGTH).join(""));
}

/** ` word word ` with a space on each side, so a whole word is found as ` word `. */
export function spaced(words: readonly string[]): string {
  return words.length === 0 ? "" : ` ${words.join(" ")} `;
}

/** Every suffix of every word: a prefix query on them finds a part of a word anywhere inside. */
export function suffixes(words: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const word of words) {
    const chars = [...word];
    for (let i = 0; i < chars.length; i++) out.add(chars.slice(i).join(""));
  }
  return [...out];
}

/** English word forms apply to `en`, `en-GB`, `en_US` and the like. */
export function isEnglish(locale: string): boolean {
  return /^en(?:[-_]|$)/i.test(locale);
}

/** A tsquery lexeme literal, quoted; words hold no quotes, but a backslash or quote is escaped anyway. */
export function lexeme(word: string, prefix = false): string {
  return `'${word.replaceAll("\\", "\\\\").replaceAll("'", "''")}'${
    prefix ? ":*" : ""
  }`;
}
