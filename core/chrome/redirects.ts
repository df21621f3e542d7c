// This module is browser compatible.
// Redirect rules: precedence (exact beats pattern, most literal segments wins) and matching (spec 3 part 4.6).

/** One accepted redirect rule (spec 3 part 2.1). */
export interface RedirectRule {
  from: string;
  match: "exact" | "pattern";
  status: 301 | 302 | 307 | 308 | 410 | 451;
  to: string | null;
}

/** Where a path goes: the rule that won and the address with pattern values filled in. */
export interface RedirectMatch {
  rule: RedirectRule;
  status: RedirectRule["status"];
  location: string | null;
}

function segments(path: string): string[] {
  return path.split("/").slice(1);
}

function literalCount(rule: RedirectRule): number {
  return segments(rule.from).filter((s) =>
    !/^\{[a-z_][a-z0-9_]*\*?\}$/i.test(s)
  )
    .length;
}

/** Rules in the order they are tried: exact rules first, then patterns by most literal segments. */
export function orderRedirects(rules: readonly RedirectRule[]): RedirectRule[] {
  return rules.map((rule, index) => ({ rule, index })).sort((a, b) => {
    const ea = a.rule.match === "exact" ? 0 : 1;
    const eb = b.rule.match === "exact" ? 0 : 1;
    if (ea !== eb) return ea - eb;
    const la = literalCount(a.rule);
    const lb = literalCount(b.rule);
    return lb - la || a.index - b.index;
  }).map((x) => x.rule);
}

/** Values a pattern takes from `path`, or null when it does not match. */
function patternValues(
  from: string,
  path: string,
): Record<string, string> | null {
  const want = segments(from);
  const have = segments(path);
  const values: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const rest = /^\{([a-z_][a-z0-9_]*)\*\}$/i.exec(want[i]);
    if (rest && i === want.length - 1) {
      if (have.length < i + 1) return null;
      values[rest[1]] = have.slice(i).join("/");
      return values;
    }
    if (i >= have.length) return null;
    const name = /^\{([a-z_][a-z0-9_]*)\}$/i.exec(want[i]);
    if (name) {
      if (have[i] === "") return null;
      values[name[1]] = have[i];
    } else if (want[i] !== have[i]) return null;
  }
  return want.length === have.length ? values : null;
}

/** The rule `path` follows, or null; exact beats pattern, most literal segments wins. */
export function matchRedirect(
  rules: readonly RedirectRule[],
  path: string,
): RedirectMatch | null {
  for (const rule of orderRedirects(rules)) {
    const values = rule.match === "exact"
      ? (rule.from === path ? {} : null)
      : patternValues(rule.from, path);
    if (!values) continue;
    const location = rule.to === null
      ? null
      : rule.to.replace(/\{([a-z_][a-z0-9_]*)\*?\}/gi, (_, n) =>
        values[n] ?? "");
    return { rule, status: rule.status, location };
  }
  return null;
}
