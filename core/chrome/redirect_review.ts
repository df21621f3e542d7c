// This module is browser compatible.
// The redirect review (SET-007): what an editor should fix in a redirect list before accepting it.
import { matchRedirect, type RedirectRule } from "./redirects.ts";

/** Longest chain followed before a list is called a loop. */
export const MAX_REDIRECT_HOPS = 10;

/** One finding of the review, naming the rule by its index in the list. */
export interface RedirectFinding {
  index: number;
  from: string;
  kind: "duplicate" | "shadowed" | "loop" | "chain";
  message: string;
  /** For `chain`: where the visitor finally lands (a path, an address, or null for 410/451). */
  final?: string | null;
}

/** A path a pattern matches: each `{name}` and `{name*}` segment replaced by `x`. */
function samplePath(from: string): string {
  return from.replace(/\{[a-z_][a-z0-9_]*\*?\}/gi, "x");
}

/**
 * Reviews a redirect list as the public site would follow it (exact before pattern, most
 * literal segments first): rules given twice, patterns that another rule always wins for
 * their own sample path, targets that lead back to where they started (loops), and targets
 * that are redirected again (chains, with the final address to point at instead). Reading
 * only: nothing is stored.
 */
export function reviewRedirects(
  rules: readonly RedirectRule[],
): RedirectFinding[] {
  const findings: RedirectFinding[] = [];
  const seen = new Map<string, number>();
  rules.forEach((rule, index) => {
    const id = `${rule.match} ${rule.from}`;
    const first = seen.get(id);
    if (first !== undefined) {
      findings.push({
        index,
        from: rule.from,
        kind: "duplicate",
        message:
          `Rule ${index} repeats rule ${first}: only the first is followed`,
      });
      return;
    }
    seen.set(id, index);
    const path = rule.match === "exact" ? rule.from : samplePath(rule.from);
    const winner = matchRedirect(rules, path);
    if (rule.match === "pattern" && winner && winner.rule !== rule) {
      findings.push({
        index,
        from: rule.from,
        kind: "shadowed",
        message: `Rule ${index} is never followed for "${path}": rule ${
          rules.indexOf(winner.rule)
        } ("${winner.rule.from}") wins`,
      });
      return;
    }
    if (!winner?.location?.startsWith("/")) return;
    const visited = new Set([path]);
    let location: string | null = winner.location;
    let hops = 0;
    while (location?.startsWith("/")) {
      const target = location.split(/[?#]/)[0];
      if (visited.has(target) || hops >= MAX_REDIRECT_HOPS) {
        findings.push({
          index,
          from: rule.from,
          kind: "loop",
          message:
            `Rule ${index} leads back to "${target}": visitors never arrive`,
        });
        return;
      }
      visited.add(target);
      const next = matchRedirect(rules, target);
      if (!next) break;
      location = next.location;
      hops++;
    }
    if (hops > 0) {
      findings.push({
        index,
        from: rule.from,
        kind: "chain",
        message: `Rule ${index} is redirected ${hops} more time${
          hops === 1 ? "" : "s"
        }: point it at the final address`,
        final: location,
      });
    }
  });
  return findings;
}
