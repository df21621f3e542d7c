// The hosting configuration emitted with every release: a generated site's runtime needs the
// global-fetch-strictly-public setting, so its server-side reads reach public hosts only
// (spec 3 part 4.7 rule 6).

/** The runtime setting a generated site needs so its server-side reads reach only public hosts. */
export const STRICTLY_PUBLIC_FETCH = "global_fetch_strictly_public";

/** The hosting configuration emitted with every release. */
export interface ReleaseHosting {
  compatibility_flags: string[];
}

/** The hosting configuration of a release. */
export function releaseHosting(): ReleaseHosting {
  return { compatibility_flags: [STRICTLY_PUBLIC_FETCH] };
}

/** True when a hosting configuration names the strictly-public fetch setting. */
export function hostingIsStrictlyPublic(hosting: unknown): boolean {
  const flags = (hosting as ReleaseHosting | null | undefined)
    ?.compatibility_flags;
  return Array.isArray(flags) && flags.includes(STRICTLY_PUBLIC_FETCH);
}
