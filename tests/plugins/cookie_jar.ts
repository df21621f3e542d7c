// What a browser would send, without a browser: a cookie jar that keeps each cookie for the host
// (or Domain) that set it, as RFC 6265 matches them, and navigations that follow redirects with
// the cookies of each address and the Referer its Referrer-Policy allows. Tests use it to see
// exactly what reaches a plugin's origin after Stave answers (LAU-011, PEXT-003).

interface JarCookie {
  name: string;
  value: string;
  /** The host that set it when it is host-only, else the Domain attribute. */
  domain: string;
  hostOnly: boolean;
  path: string;
  /** The attributes as sent, lower-cased names (for assertions on Domain, HttpOnly, SameSite). */
  attributes: Record<string, string>;
}

/** One request a navigation made and what answered it. */
export interface Hop {
  url: string;
  sent: Headers;
  status: number;
  headers: Headers;
  body: string;
}

const IP = /^\d{1,3}(\.\d{1,3}){3}$/;

/** A browser's cookie store, scoped as a browser scopes it. */
export class CookieJar {
  readonly cookies: JarCookie[] = [];

  /** Adds a host-only cookie as a sign-in on `url`'s host would have set it. */
  seed(url: string, name: string, value: string): void {
    const host = new URL(url).hostname;
    this.cookies.push({
      name,
      value,
      domain: host,
      hostOnly: true,
      path: "/",
      attributes: {},
    });
  }

  /** Keeps the cookies `response` sets, as the browser at `url` would (others' domains refused). */
  store(url: string, response: Response): void {
    const host = new URL(url).hostname;
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...rest] = line.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const attributes: Record<string, string> = {};
      for (const part of rest) {
        const [k, ...v] = part.split("=");
        attributes[k.trim().toLowerCase()] = v.join("=").trim();
      }
      const domain = attributes.domain?.replace(/^\./, "").toLowerCase();
      // A Domain the setting host is not within is refused by browsers.
      if (domain !== undefined && !domainMatches(host, domain)) continue;
      const index = this.cookies.findIndex((c) => c.name === name);
      if (index >= 0) this.cookies.splice(index, 1);
      if (
        attributes["max-age"] !== undefined &&
        Number(attributes["max-age"]) <= 0
      ) {
        continue;
      }
      this.cookies.push({
        name,
        value,
        domain: domain ?? host,
        hostOnly: domain === undefined,
        path: attributes.path || "/",
        attributes,
      });
    }
  }

  /** The Cookie header a browser sends to `url`, or null when no cookie applies. */
  header(url: string): string | null {
    const { hostname, pathname } = new URL(url);
    const sent = this.cookies.filter((c) =>
      (c.hostOnly
        ? hostname === c.domain
        : domainMatches(hostname, c.domain)) &&
      pathname.startsWith(c.path)
    );
    return sent.length === 0
      ? null
      : sent.map((c) => `${c.name}=${c.value}`).join("; ");
  }

  /**
   * Navigates like a browser's top-level load: each hop carries the jar's cookies for its
   * address and, across origins, a Referer unless the previous answer said `no-referrer`.
   */
  async navigate(
    url: string,
    init: { method?: string; headers?: Record<string, string>; body?: string } =
      {},
  ): Promise<Hop[]> {
    const hops: Hop[] = [];
    let next: string | null = url;
    let method = init.method ?? "GET";
    let body = init.body;
    let extra = init.headers ?? {};
    let referer: string | null = null;
    while (next !== null && hops.length < 10) {
      const sent = new Headers(extra);
      const cookie = this.header(next);
      if (cookie !== null) sent.set("cookie", cookie);
      if (referer !== null) sent.set("referer", referer);
      const response: Response = await fetch(next, {
        method,
        headers: sent,
        body,
        redirect: "manual",
      });
      this.store(next, response);
      hops.push({
        url: next,
        sent,
        status: response.status,
        headers: response.headers,
        body: await response.text(),
      });
      const location: string | null = response.headers.get("location");
      if (response.status < 300 || response.status > 399 || !location) break;
      const target: string = new URL(location, next).toString();
      // Without a policy a browser sends the origin across origins
      // (strict-origin-when-cross-origin); `no-referrer` sends nothing.
      const policy = response.headers.get("referrer-policy");
      referer = policy === "no-referrer"
        ? null
        : new URL(target).origin === new URL(next).origin
        ? next
        : `${new URL(next).origin}/`;
      next = target;
      method = "GET";
      body = undefined;
      extra = {};
    }
    return hops;
  }
}

function domainMatches(host: string, domain: string): boolean {
  if (host === domain) return true;
  return !IP.test(host) && host.endsWith(`.${domain}`);
}
