// Drawn HTML kept per address while every input it was drawn from is the very same object: the
// reused answers (chrome and lists 30 s, pages and posts for RENDERER_PAGE_REUSE_MS) are the same
// objects within their windows, so a page drawn once serves every visitor until one of them is
// read again. Drawing is most of a rendered page's CPU; comparing a dozen references is nothing.

/** A per-render form key that is swapped for a fresh one in every answer (see `withFormKey`). */
export const FORM_KEY_SLOT = crypto.randomUUID().replaceAll("-", "");

/**
 * The drawn HTML of `key`, drawn again only when one of `inputs` is not the one it was drawn from.
 * A drawing `keep` refuses is served once and not kept.
 */
export class DrawnPages {
  #kept = new Map<string, { inputs: readonly unknown[]; html: string }>();
  constructor(readonly maxKeys = 256) {}

  async get(
    key: string,
    inputs: readonly unknown[],
    draw: () => string | Promise<string>,
    keep: (html: string) => boolean = () => true,
  ): Promise<string> {
    const kept = this.#kept.get(key);
    if (kept && sameInputs(kept.inputs, inputs)) return kept.html;
    const html = await draw();
    if (!keep(html)) {
      this.#kept.delete(key);
      return html;
    }
    if (this.#kept.size >= this.maxKeys) this.#kept.clear();
    this.#kept.set(key, { inputs, html });
    return html;
  }
}

function sameInputs(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * `html` with the shared form-key slot replaced by a fresh key, so that two visitors of one kept
 * page never submit under the same key (the service would take the second for a replay).
 */
export function withFormKey(html: string): string {
  return html.includes(FORM_KEY_SLOT)
    ? html.replaceAll(FORM_KEY_SLOT, crypto.randomUUID().replaceAll("-", ""))
    : html;
}
