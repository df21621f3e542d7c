// Matches a path against the accepted redirect rules: exact rules first, then the pattern with
// the most literal segments (`{name}` takes one segment, a final `{name*}` the rest).
import type { RedirectRule } from "./api.ts";

/** The rule's answer for `path`: where to go (null for 410 and 451) and the status. */
export interface RedirectMatch {
  status: RedirectRule["status"];
  location: string | null;
}

/** The redirect `rules` give `path`, or null. */
export function matchRedirect(
  rules: readonly RedirectRule[],
  path: string,
): RedirectMatch | null {
  const exact = rules.find((r) => r.match === "exact" && r.from === path);
  if (exact) return { status: exact.status, location: exact.to };
  let best: {
    rule: RedirectRule;
    literals: number;
    names: Record<string, string>;
  } | null = null;
  for (const rule of rules) {
    if (rule.match !== "pattern") continue;
    const names = matchPattern(rule.from, path);
    if (!names) continue;
    const literals = rule.from.split("/").filter((s) => s && !s.startsWith("{"))
      .length;
    if (!best || literals > best.literals) best = { rule, literals, names };
  }
  if (!best) return null;
  const to = best.rule.to === null ? null : best.rule.to.replace(
    /\{([a-z_][a-z0-9_]*)\*?\}/gi,
    (_, name: string) => best!.names[name] ?? "",
  );
  return { status: best.rule.status, location: to };
}

function matchPattern(
  from: string,
  path: string,
): Record<string, string> | null {
  const want = from.split("/").filter(Boolean);
  const have = path.split("/").filter(Boolean);
  const names: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const part = want[i];
    const rest = /^\{([a-z_][a-z0-9_]*)\*\}$/i.exec(part);
    if (rest && i === want.length - 1) {
      if (have.length <= i) return null;
      names[rest[1]] = have.slice(i).join("/");
      return names;
    }
    if (i >= have.length) return null;
    const one = /^\{([a-z_][a-z0-9_]*)\}$/i.exec(part);
    if (one) names[one[1]] = have[i];
    else if (part !== have[i]) return null;
  }
  return want.length === have.length ? names : null;
}
