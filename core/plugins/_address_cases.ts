// Address spellings the destination and outbound tests share: each refused class in many forms.

/** Refused IPv4 literals by class, in decimal, octal, hexadecimal, short and other spellings. */
export const refusedLiterals: Record<string, readonly string[]> = {
  // OUT-005
  private: [
    "10.0.0.1",
    "10.255.255.255",
    "012.0.0.1",
    "0xa.0.0.1",
    "167772161",
    "0xa000001",
    "10.1",
    "10.0.1",
    "172.16.0.1",
    "172.31.255.255",
    "0xac.0x10.0.1",
    "0254.020.0.1",
    "2886729729",
    "192.168.0.1",
    "192.168.255.255",
    "0xc0a80001",
    "3232235521",
    "0300.0250.0.1",
    "192.168.1",
  ],
  // OUT-006
  loopback: [
    "127.0.0.1",
    "127.0.0.1.",
    "127.1",
    "127.0.1",
    "127.255.255.254",
    "2130706433",
    "0x7f000001",
    "0X7F000001",
    "0x7f.0.0.1",
    "0x7f.0x0.0x0.0x1",
    "0177.0.0.1",
    "0177.0.0.01",
    "00000177.0.0.1",
    "017700000001",
    "0x7f.1",
    "%31%32%37.0.0.1",
    "127。0。0。1",
    "１２７.０.０.１",
    "0X7F.1",
    "127.000.000.001",
  ],
  // OUT-007
  "link-local": [
    "169.254.169.254",
    "169.254.0.1",
    "0xa9.0xfe.0xa9.0xfe",
    "2852039166",
    "0251.0376.0251.0376",
    "169.254.43518",
  ],
  // OUT-008
  shared: ["100.64.0.1", "100.127.255.255", "1681915905", "0x64.0x40.0.1"],
  // OUT-009
  multicast: ["224.0.0.1", "239.255.255.255", "0xe0000001", "3758096385"],
  reserved: [
    "240.0.0.1",
    "250.1.2.3",
    "255.255.255.254",
    "192.0.0.8",
    "192.88.99.1",
  ],
  broadcast: ["255.255.255.255", "4294967295", "0xffffffff"],
  "this network": ["0.0.0.0", "0", "0.1.2.3", "0x0"],
  // OUT-010
  benchmarking: ["198.18.0.1", "198.19.255.255", "3323068417"],
  documentation: [
    "192.0.2.1",
    "198.51.100.7",
    "203.0.113.9",
    "0xcb007109",
  ],
};

/** Host names refused by part 5.10 (dotless, local suffixes), in several spellings. */
export const refusedNames: readonly string[] = [
  "intranet",
  "intranet.",
  "localhost",
  "LOCALHOST",
  "localhost.",
  "app.localhost",
  "localdomain",
  "box.localdomain",
  "printer.local",
  "printer.local.",
  "local",
  "x.internal",
  "metadata.google.internal",
  "X.INTERNAL",
  "internal",
  "home.arpa",
  "nas.home.arpa",
];
