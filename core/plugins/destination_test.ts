// Table-driven checks of every refused destination class and spelling (OUT-002 to OUT-015, OUT-018).
import { deepEqual, equal } from "node:assert/strict";
import { refusedLiterals, refusedNames } from "./_address_cases.ts";
import {
  checkDestination,
  parseIpv4,
  parseIpv6,
  refusedAddressReason,
} from "./destination.ts";

for (const [kind, hosts] of Object.entries(refusedLiterals)) {
  Deno.test(`checkDestination() refuses ${kind} IPv4 literals in every spelling (OUT-005..OUT-012)`, () => {
    for (const host of hosts) {
      const check = checkDestination(`https://${host}/svc/manifest.json`);
      equal(check.ok, false, host);
      if (!check.ok) equal(check.code, "url_destination_refused", host);
    }
  });
}

Deno.test("checkDestination() accepts public IPv4 literals, normalised (OUT-011)", () => {
  for (
    const [host, normal] of [
      ["93.184.215.14", "93.184.215.14"],
      ["1.1.1.1", "1.1.1.1"],
      ["0x01010101", "1.1.1.1"],
      ["16843009", "1.1.1.1"],
      ["8.8.8.8.", "8.8.8.8"],
      ["172.32.0.1", "172.32.0.1"],
      ["100.128.0.1", "100.128.0.1"],
      ["198.20.0.1", "198.20.0.1"],
      ["223.255.255.255", "223.255.255.255"],
    ]
  ) {
    const check = checkDestination(`https://${host}/m.json`);
    equal(check.ok, true, host);
    if (check.ok) {
      equal(check.host, normal);
      equal(check.hostKind, "ipv4");
    }
  }
});

Deno.test("checkDestination() refuses every IPv6 literal (OUT-013)", () => {
  for (
    const host of [
      "[::1]",
      "[2606:4700::1]",
      "[2001:4860:4860::8888]",
      "[::ffff:127.0.0.1]",
      "[::ffff:7f00:1]",
      "[::]",
      "[fe80::1]",
      "[fc00::1]",
      "[64:ff9b::7f00:1]",
      "[0:0:0:0:0:0:0:1]",
    ]
  ) {
    const check = checkDestination(`https://${host}/m.json`);
    equal(check.ok, false, host);
    if (!check.ok) equal(check.code, "url_destination_refused", host);
  }
});

Deno.test("checkDestination() refuses dotless and local names (OUT-014, OUT-015)", () => {
  for (const host of refusedNames) {
    const check = checkDestination(`https://${host}/m.json`);
    equal(check.ok, false, host);
    if (!check.ok) equal(check.code, "url_destination_refused", host);
  }
});

Deno.test("checkDestination() accepts public names, including look-alikes of refused suffixes", () => {
  for (
    const host of [
      "plugin.example.com",
      "notlocalhost.com",
      "internal.example.com",
      "local.example.org",
      "home.arpa.example.net",
      "xn--bcher-kva.example",
      "1e2.com",
    ]
  ) {
    const check = checkDestination(`https://${host}/m.json`);
    equal(check.ok, true, host);
    if (check.ok) equal(check.hostKind, "name");
  }
});

Deno.test("checkDestination() refuses http, credentials and fragments (OUT-002, OUT-003, OUT-004)", () => {
  const cases: [string, string][] = [
    ["http://plugin.example.com/m.json", "url_not_https"],
    ["ftp://plugin.example.com/m.json", "url_not_https"],
    ["ws://plugin.example.com/m.json", "url_not_https"],
    ["https://u:p@plugin.example.com/m.json", "url_destination_refused"],
    ["https://u@plugin.example.com/m.json", "url_destination_refused"],
    ["https://:p@plugin.example.com/m.json", "url_destination_refused"],
    ["https://plugin.example.com/m.json#x", "url_destination_refused"],
    ["https://plugin.example.com/m.json#", "url_destination_refused"],
    ["not a url", "url_destination_refused"],
    ["https://", "url_destination_refused"],
  ];
  for (const [url, code] of cases) {
    const check = checkDestination(url);
    equal(check.ok, false, url);
    if (!check.ok) {
      equal(check.code, code, url);
      equal(check.message.includes("u:p"), false);
    }
  }
});

Deno.test("checkDestination() allows an exact development origin over http only in development (OUT-018)", () => {
  const dev = { development: true, devOrigins: ["http://localhost:8787"] };
  const ok = checkDestination("http://localhost:8787/svc/manifest.json", dev);
  equal(ok.ok, true);
  if (ok.ok) equal(ok.devOrigin, true);
  for (
    const url of [
      "http://localhost:8788/svc/manifest.json",
      "http://127.0.0.1:8787/svc/manifest.json",
      "http://localhost/svc/manifest.json",
      "http://sub.localhost:8787/svc/manifest.json",
    ]
  ) {
    const check = checkDestination(url, dev);
    equal(check.ok, false, url);
    if (!check.ok) equal(check.code, "url_not_https", url);
  }
  const off = checkDestination("http://localhost:8787/svc/manifest.json", {
    development: false,
    devOrigins: ["http://localhost:8787"],
  });
  equal(off.ok, false);
  // A listed origin still refuses credentials and fragments.
  equal(checkDestination("http://u:p@localhost:8787/", dev).ok, false);
  equal(checkDestination("http://localhost:8787/#x", dev).ok, false);
  // https to a local name needs the exact https origin listed, not just the host.
  equal(checkDestination("https://localhost:8787/", dev).ok, false);
});

Deno.test("parseIpv4() reads short, octal and hexadecimal forms and refuses overflow", () => {
  deepEqual(parseIpv4("127.1"), [127, 0, 0, 1]);
  deepEqual(parseIpv4("10.0.258"), [10, 0, 1, 2]);
  deepEqual(parseIpv4("0x7f.0.0.1"), [127, 0, 0, 1]);
  deepEqual(parseIpv4("0x"), [0, 0, 0, 0]);
  deepEqual(parseIpv4("4294967295"), [255, 255, 255, 255]);
  equal(parseIpv4("4294967296"), null);
  equal(parseIpv4("256.0.0.1"), null);
  equal(parseIpv4("1.2.3.4.5"), null);
  equal(parseIpv4("09.0.0.1"), null);
  equal(parseIpv4("example.com"), null);
  equal(parseIpv4("1..2"), null);
});

Deno.test("refusedAddressReason() judges resolved addresses: IPv4 ranges and non-global IPv6", () => {
  for (
    const address of [
      "127.0.0.1",
      "10.1.2.3",
      "169.254.169.254",
      "100.64.1.1",
      "0.0.0.0",
      "::1",
      "::",
      "::ffff:127.0.0.1",
      "::ffff:8.8.8.8",
      "fe80::1",
      "fc00::1",
      "fd12:3456::1",
      "ff02::1",
      "64:ff9b::a00:1",
      "2001:db8::1",
      "2002:7f00:1::1",
      "2001:0:4136:e378::1",
      "3fff::1",
      "garbage",
    ]
  ) {
    equal(typeof refusedAddressReason(address), "string", address);
  }
  for (
    const address of [
      "93.184.215.14",
      "2606:4700::6810:84e5",
      "2a00:1450:4001::200e",
    ]
  ) {
    equal(refusedAddressReason(address), null, address);
  }
});

Deno.test("parseIpv6() reads compressed forms and a dotted tail", () => {
  deepEqual(parseIpv6("::1"), [0, 0, 0, 0, 0, 0, 0, 1]);
  deepEqual(parseIpv6("::ffff:1.2.3.4"), [0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
  deepEqual(parseIpv6("[2606:4700::1]"), [0x2606, 0x4700, 0, 0, 0, 0, 0, 1]);
  equal(parseIpv6("1::2::3"), null);
  equal(parseIpv6("1.2.3.4"), null);
  equal(parseIpv6("12345::"), null);
});

Deno.test("parseIpv4() agrees with the URL parser on 5000 random spellings (seeded)", () => {
  let seed = 20261123;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const spell = (value: number) => {
    const radix = rand(3);
    if (radix === 0) return value.toString(10);
    if (radix === 1) return `0${value.toString(8)}`;
    return `${rand(2) ? "0x" : "0X"}${value.toString(16)}`;
  };
  for (let i = 0; i < 5000; i++) {
    const octets = [rand(256), rand(256), rand(256), rand(256)];
    const value = ((octets[0] << 24) >>> 0) + (octets[1] << 16) +
      (octets[2] << 8) + octets[3];
    const parts = rand(4) + 1;
    let host: string;
    if (parts === 1) host = spell(value);
    else if (parts === 2) {
      host = `${spell(octets[0])}.${spell(value % 2 ** 24)}`;
    } else if (parts === 3) {
      host = `${spell(octets[0])}.${spell(octets[1])}.${
        spell(value % 2 ** 16)
      }`;
    } else host = octets.map(spell).join(".");
    const expected = new URL(`https://${host}/`).hostname;
    deepEqual(parseIpv4(host)?.join("."), expected, host);
    const check = checkDestination(`https://${host}/`);
    equal(
      check.ok,
      refusedAddressReason(expected) === null,
      `${host} (${expected})`,
    );
  }
});
