// This module is browser compatible.
// Judges where a call to a plugin may go (spec 1 part 5.10): scheme, credentials, fragment, IPv4 ranges, IPv6, names.

/** Whether the service runs in development and which exact origins may then be reached over plain HTTP. */
export interface OutboundPolicy {
  /** True only when `ENVIRONMENT=development`. */
  development: boolean;
  /** Exact origins (`http://localhost:8787`) honoured only in development. */
  devOrigins: readonly string[];
}

/** The policy outside development: nothing but public https destinations. */
export const strictOutboundPolicy: OutboundPolicy = {
  development: false,
  devOrigins: [],
};

/** A refusal of a URL before any connection is attempted. */
export interface DestinationRefusal {
  ok: false;
  code: "url_not_https" | "url_destination_refused";
  /** Sentence naming the rule that refused, never echoing credentials. */
  message: string;
}

/** An accepted URL: connect to `host` (a name or a checked IPv4 literal). */
export interface DestinationAccepted {
  ok: true;
  url: URL;
  /** The host without a trailing dot and without brackets. */
  host: string;
  port: number;
  tls: boolean;
  /** `ipv4` when the host is an address literal (already checked), `name` otherwise. */
  hostKind: "ipv4" | "name";
  /** True when the URL's exact origin is a development origin: no range or name checks apply. */
  devOrigin: boolean;
}

/** The answer of checkDestination(). */
export type DestinationCheck = DestinationAccepted | DestinationRefusal;

const refusedNameSuffixes = [
  "localhost",
  "localdomain",
  "local",
  "internal",
  "home.arpa",
];

/**
 * Checks a URL the service is about to call. Pure: no DNS, no connection. The resolved
 * addresses of a name are checked separately with refusedAddressReason().
 */
export function checkDestination(
  raw: string,
  policy: OutboundPolicy = strictOutboundPolicy,
): DestinationCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse("url_destination_refused", "The address is not a URL");
  }
  if (url.username !== "" || url.password !== "") {
    return refuse(
      "url_destination_refused",
      "The address carries credentials: a plugin URL never holds a user or password",
    );
  }
  if (url.hash !== "" || raw.includes("#")) {
    return refuse(
      "url_destination_refused",
      "The address carries a fragment: a plugin URL has none",
    );
  }
  const devOrigin = policy.development &&
    (url.protocol === "http:" || url.protocol === "https:") &&
    policy.devOrigins.includes(url.origin);
  if (!devOrigin && url.protocol !== "https:") {
    return refuse(
      "url_not_https",
      `The address uses "${
        url.protocol.replace(":", "")
      }": plugin calls use https`,
    );
  }
  const tls = url.protocol === "https:";
  const port = url.port === "" ? (tls ? 443 : 80) : Number(url.port);
  let host = url.hostname.toLowerCase();
  if (host.startsWith("[")) {
    if (devOrigin) {
      return {
        ok: true,
        url,
        host: host.slice(1, -1),
        port,
        tls,
        hostKind: "name",
        devOrigin,
      };
    }
    return refuse(
      "url_destination_refused",
      "The address is an IPv6 literal: plugin calls go to a public name or IPv4 address",
    );
  }
  if (host.endsWith(".")) host = host.slice(0, -1);
  if (devOrigin) {
    return { ok: true, url, host, port, tls, hostKind: "name", devOrigin };
  }
  const octets = parseIpv4(host);
  if (octets !== null) {
    const reason = refusedIpv4Reason(octets);
    if (reason !== null) {
      return refuse(
        "url_destination_refused",
        `The address is a ${reason} IPv4 address`,
      );
    }
    return {
      ok: true,
      url,
      host: octets.join("."),
      port,
      tls,
      hostKind: "ipv4",
      devOrigin,
    };
  }
  const nameReason = refusedNameReason(host);
  if (nameReason !== null) {
    return refuse("url_destination_refused", nameReason);
  }
  return { ok: true, url, host, port, tls, hostKind: "name", devOrigin };
}

/** Why a host name is refused, or null when it may be resolved. */
export function refusedNameReason(host: string): string | null {
  const name = host.toLowerCase().replace(/\.$/, "");
  if (name === "" || !name.includes(".")) {
    return "The host name has no dot: plugin calls go to a public name";
  }
  for (const suffix of refusedNameSuffixes) {
    if (name === suffix || name.endsWith(`.${suffix}`)) {
      return `The host name ends in "${suffix}", a local name`;
    }
  }
  return null;
}

/**
 * Parses an IPv4 address the way URL hosts are read: one to four parts, each decimal,
 * octal (leading 0) or hexadecimal (0x); the last part fills the remaining bytes
 * (`127.1`, `2130706433`, `0x7f.0.0.1`, `0177.0.0.1`). Null when `host` is not IPv4.
 */
export function parseIpv4(host: string): number[] | null {
  let text = host;
  if (text.endsWith(".")) text = text.slice(0, -1);
  const parts = text.split(".");
  if (parts.length === 0 || parts.length > 4) return null;
  const numbers: number[] = [];
  for (const part of parts) {
    const n = parseIpv4Part(part);
    if (n === null) return null;
    numbers.push(n);
  }
  const last = numbers[numbers.length - 1];
  const leading = numbers.slice(0, -1);
  if (leading.some((n) => n > 255)) return null;
  if (last >= 256 ** (5 - numbers.length)) return null;
  let value = last;
  leading.forEach((n, i) => {
    value += n * 256 ** (3 - i);
  });
  return [
    Math.floor(value / 2 ** 24) % 256,
    Math.floor(value / 2 ** 16) % 256,
    Math.floor(value / 2 ** 8) % 256,
    value % 256,
  ];
}

function parseIpv4Part(part: string): number | null {
  if (part === "") return null;
  let digits = part;
  let radix = 10;
  if (/^0x/i.test(digits)) {
    digits = digits.slice(2);
    radix = 16;
    if (digits === "") return 0;
  } else if (digits.length > 1 && digits.startsWith("0")) {
    digits = digits.slice(1);
    radix = 8;
  }
  const pattern = radix === 16
    ? /^[0-9a-f]+$/i
    : radix === 8
    ? /^[0-7]+$/
    : /^[0-9]+$/;
  if (!pattern.test(digits)) return null;
  const value = parseInt(digits, radix);
  return Number.isSafeInteger(value) ? value : null;
}

const ipv4Ranges: [number[], number, string][] = [
  [[0, 0, 0, 0], 8, '"this network" (0.0.0.0/8)'],
  [[10, 0, 0, 0], 8, "private"],
  [[100, 64, 0, 0], 10, "shared (carrier-grade NAT)"],
  [[127, 0, 0, 0], 8, "loopback"],
  [[169, 254, 0, 0], 16, "link-local"],
  [[172, 16, 0, 0], 12, "private"],
  [[192, 0, 0, 0], 24, "reserved (IETF protocol assignments)"],
  [[192, 0, 2, 0], 24, "documentation"],
  [[192, 88, 99, 0], 24, "reserved (6to4 relay)"],
  [[192, 168, 0, 0], 16, "private"],
  [[198, 18, 0, 0], 15, "benchmarking"],
  [[198, 51, 100, 0], 24, "documentation"],
  [[203, 0, 113, 0], 24, "documentation"],
  [[224, 0, 0, 0], 4, "multicast"],
  [[255, 255, 255, 255], 32, "broadcast"],
  [[240, 0, 0, 0], 4, "reserved"],
];

/** The class that refuses an IPv4 address (e.g. "loopback"), or null for a public address. */
export function refusedIpv4Reason(octets: readonly number[]): string | null {
  const value = toUint32(octets);
  for (const [base, bits, reason] of ipv4Ranges) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if (((value & mask) >>> 0) === ((toUint32(base) & mask) >>> 0)) {
      return reason;
    }
  }
  return null;
}

function toUint32(octets: readonly number[]): number {
  return ((octets[0] << 24) >>> 0) + (octets[1] << 16) + (octets[2] << 8) +
    octets[3];
}

/**
 * Parses an IPv6 address (as DNS answers spell it) into eight 16-bit groups; null when
 * it is not IPv6. Accepts `::` compression and a dotted IPv4 tail.
 */
export function parseIpv6(text: string): number[] | null {
  let s = text.toLowerCase();
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (!/^[0-9a-f:.]+$/.test(s)) return null;
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (part === "") return [];
    const groups: number[] = [];
    const pieces = part.split(":");
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i];
      if (piece.includes(".")) {
        if (i !== pieces.length - 1) return null;
        const v4 = /^\d{1,3}(\.\d{1,3}){3}$/.test(piece)
          ? piece.split(".").map(Number)
          : null;
        if (v4 === null || v4.some((n) => n > 255)) return null;
        groups.push(v4[0] * 256 + v4[1], v4[2] * 256 + v4[3]);
      } else {
        if (!/^[0-9a-f]{1,4}$/.test(piece)) return null;
        groups.push(parseInt(piece, 16));
      }
    }
    return groups;
  };
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  if (head === null || tail === null) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return null;
  return [...head, ...new Array(missing).fill(0), ...tail];
}

/**
 * Why an address a name resolved to is refused, or null when it may be connected to.
 * IPv4 uses the literal ranges; IPv6 accepts only global unicast (2000::/3) outside
 * documentation, Teredo, 6to4, ORCHID and benchmarking space, since a mapped or
 * translated address can hide a private IPv4 one.
 */
export function refusedAddressReason(address: string): string | null {
  const v4 = /^\d{1,3}(\.\d{1,3}){3}$/.test(address)
    ? parseIpv4(address)
    : null;
  if (v4 !== null) return refusedIpv4Reason(v4);
  const v6 = parseIpv6(address);
  if (v6 === null) return "not an IP address";
  if ((v6[0] & 0xe000) !== 0x2000) {
    return "non-global IPv6 (loopback, unique-local, link-local, mapped, multicast or reserved)";
  }
  if (v6[0] === 0x2001 && v6[1] === 0x0db8) return "documentation IPv6";
  if (v6[0] === 0x3fff && v6[1] < 0x1000) return "documentation IPv6";
  if (v6[0] === 0x2001 && v6[1] === 0) return "Teredo IPv6";
  if (v6[0] === 0x2002) return "6to4 IPv6";
  if (v6[0] === 0x2001 && v6[1] === 0x0002 && v6[2] === 0) {
    return "benchmarking IPv6";
  }
  if (v6[0] === 0x2001 && (v6[1] & 0xfff0) === 0x0010) return "ORCHID IPv6";
  if (v6[0] === 0x2001 && (v6[1] & 0xfff0) === 0x0020) return "ORCHID IPv6";
  return null;
}

function refuse(
  code: DestinationRefusal["code"],
  message: string,
): DestinationRefusal {
  return { ok: false, code, message };
}
