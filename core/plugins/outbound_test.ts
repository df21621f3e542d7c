// Long on purpose: every refusal and fault of the one guarded outbound fetch, read in one place.
// outboundFetch(): no connection for a refused destination, DNS checked before connect, real local servers for faults (OUT-*).
import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import {
  type ConnectTcp,
  OutboundBudget,
  outboundDownload,
  outboundFetch,
  type OutboundOptions,
  outboundPolicyFromConfig,
  OutboundStreamError,
  type ResolveDns,
  type StartTimer,
} from "./outbound.ts";
import { refusedLiterals, refusedNames } from "./_address_cases.ts";

/** Counts every resolution and connection; resolves names from a table; connects nowhere unless told. */
function recorder(
  table: Record<string, { A?: string[]; AAAA?: string[] }> = {},
  connectTo?: number,
) {
  const calls = { dns: [] as string[], connect: [] as string[] };
  const resolveDns: ResolveDns = (name, type) => {
    calls.dns.push(`${type} ${name}`);
    const answer = table[name]?.[type];
    return answer
      ? Promise.resolve(answer)
      : Promise.reject(new Deno.errors.NotFound("no record"));
  };
  const connect: ConnectTcp = ({ address, port }) => {
    calls.connect.push(`${address}:${port}`);
    if (connectTo === undefined) {
      return Promise.reject(new Error("test connector refuses"));
    }
    return Deno.connect({ hostname: "127.0.0.1", port: connectTo });
  };
  return { calls, resolveDns, connect };
}

const refusedUrls: [string, string][] = [
  ["http://plugin.example.com/m.json", "url_not_https"],
  ["https://user:pass@plugin.example.com/m.json", "url_destination_refused"],
  ["https://plugin.example.com/m.json#frag", "url_destination_refused"],
  ["https://10.0.0.1/m.json", "url_destination_refused"],
  ["https://127.0.0.1/m.json", "url_destination_refused"],
  ["https://2130706433/m.json", "url_destination_refused"],
  ["https://0x7f000001/m.json", "url_destination_refused"],
  ["https://0177.0.0.1/m.json", "url_destination_refused"],
  ["https://127.1/m.json", "url_destination_refused"],
  ["https://169.254.169.254/latest/meta-data", "url_destination_refused"],
  ["https://100.64.0.1/m.json", "url_destination_refused"],
  ["https://224.0.0.1/m.json", "url_destination_refused"],
  ["https://240.0.0.1/m.json", "url_destination_refused"],
  ["https://198.18.0.1/m.json", "url_destination_refused"],
  ["https://192.0.2.1/m.json", "url_destination_refused"],
  ["https://0.0.0.0/m.json", "url_destination_refused"],
  ["https://255.255.255.255/m.json", "url_destination_refused"],
  ["https://[2606:4700::1]/m.json", "url_destination_refused"],
  ["https://[::1]/m.json", "url_destination_refused"],
  ["https://intranet/m.json", "url_destination_refused"],
  ["https://localhost/m.json", "url_destination_refused"],
  ["https://x.internal/m.json", "url_destination_refused"],
  ["https://printer.local/m.json", "url_destination_refused"],
  ["https://box.localdomain/m.json", "url_destination_refused"],
  ["https://nas.home.arpa/m.json", "url_destination_refused"],
];

Deno.test("outboundFetch() refuses every refused URL without resolving or connecting (OUT-001..OUT-015)", async () => {
  for (const [url, code] of refusedUrls) {
    const r = recorder();
    const result = await outboundFetch(
      { url, method: "GET", purpose: "manifest" },
      { resolveDns: r.resolveDns, connect: r.connect },
    );
    equal(result.ok, false, url);
    if (!result.ok) equal(result.code, code, url);
    deepEqual(r.calls, { dns: [], connect: [] }, url);
  }
});

Deno.test("outboundFetch() refuses every spelling of every refused class and attempts no lookup or connection (OUT-005..OUT-015)", async () => {
  const ipv6 = [
    "[::1]",
    "[::]",
    "[::ffff:127.0.0.1]",
    "[fe80::1]",
    "[fd00::1]",
    "[2606:4700::1]",
  ];
  const hosts = [
    ...Object.values(refusedLiterals).flat(),
    ...refusedNames,
    ...ipv6,
  ];
  for (const host of hosts) {
    for (
      const purpose of ["manifest", "invocation", "media_download"] as const
    ) {
      const r = recorder();
      const result = await outboundFetch(
        {
          url: `https://${host}:8443/svc/x?y=1`,
          method: "POST",
          purpose,
          json: {},
        },
        { resolveDns: r.resolveDns, connect: r.connect },
      );
      equal(result.ok, false, host);
      if (!result.ok) equal(result.code, "url_destination_refused", host);
      deepEqual(r.calls, { dns: [], connect: [] }, host);
    }
  }
  ok(hosts.length > 90, String(hosts.length));
});

// OUT-017: the spec states this cannot be detected; Stave resolves the name itself and checks every
// answer, so the stated limitation does not apply (docs/plugins.md, "How Stave calls a plugin").
Deno.test("outboundFetch() refuses a name resolving to a refused address and never connects (no DNS-rebinding gap; OUT-017)", async () => {
  const cases: Record<string, { A?: string[]; AAAA?: string[] }> = {
    "loop.example.com": { A: ["127.0.0.1"] },
    "meta.example.com": { A: ["169.254.169.254"] },
    "lan.example.com": { A: ["192.168.1.10"] },
    "mixed.example.com": { A: ["93.184.215.14", "10.0.0.5"] },
    "v6loop.example.com": { A: ["93.184.215.14"], AAAA: ["::1"] },
    "mapped.example.com": { AAAA: ["::ffff:127.0.0.1"] },
    "ula.example.com": { AAAA: ["fd00::1"] },
    "cgnat.example.com": { A: ["100.100.100.100"] },
  };
  for (const name of Object.keys(cases)) {
    const r = recorder(cases);
    const result = await outboundFetch(
      {
        url: `https://${name}/svc/manifest.json`,
        method: "GET",
        purpose: "manifest",
      },
      { resolveDns: r.resolveDns, connect: r.connect },
    );
    equal(result.ok, false, name);
    if (!result.ok) equal(result.code, "url_destination_refused", name);
    deepEqual(r.calls.dns.sort(), [`A ${name}`, `AAAA ${name}`], name);
    deepEqual(r.calls.connect, [], name);
  }
});

Deno.test("outboundFetch() answers plugin_unreachable for a name that does not resolve or a refused connection (OUT-025)", async () => {
  const r = recorder({ "up.example.com": { A: ["93.184.215.14"] } });
  const none = await outboundFetch(
    {
      url: "https://gone.example.com/m.json",
      method: "GET",
      purpose: "manifest",
    },
    { resolveDns: r.resolveDns, connect: r.connect },
  );
  equal(none.ok, false);
  if (!none.ok) equal(none.code, "plugin_unreachable");
  deepEqual(r.calls.connect, []);
  const refused = await outboundFetch(
    {
      url: "https://up.example.com/m.json",
      method: "GET",
      purpose: "manifest",
    },
    { resolveDns: r.resolveDns, connect: r.connect },
  );
  equal(refused.ok, false);
  if (!refused.ok) equal(refused.code, "plugin_unreachable");
  // The connection went to the checked address, not to a fresh resolution of the name.
  deepEqual(r.calls.connect, ["93.184.215.14:443"]);
});

/** A raw TCP server that answers each connection with `reply` (or holds it open when null). */
function rawServer(reply: (request: string) => string | Uint8Array | null) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const requests: string[] = [];
  const open: Deno.Conn[] = [];
  const done = (async () => {
    for await (const conn of listener) {
      open.push(conn);
      (async () => {
        const buf = new Uint8Array(65_536);
        let text = "";
        while (!text.includes("\r\n\r\n")) {
          const n = await conn.read(buf).catch(() => null);
          if (n === null) return;
          text += new TextDecoder().decode(buf.subarray(0, n));
        }
        const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? 0);
        while (text.length - text.indexOf("\r\n\r\n") - 4 < length) {
          const n = await conn.read(buf).catch(() => null);
          if (n === null) break;
          text += new TextDecoder().decode(buf.subarray(0, n));
        }
        requests.push(text);
        const answer = reply(text);
        if (answer === null) return;
        const bytes = typeof answer === "string"
          ? new TextEncoder().encode(answer)
          : answer;
        try {
          let off = 0;
          while (off < bytes.length) {
            off += await conn.write(bytes.subarray(off));
          }
          conn.close();
        } catch { /* client went away */ }
      })();
    }
  })();
  const port = (listener.addr as Deno.NetAddr).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      listener.close();
      for (const c of open) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      await done.catch(() => {});
    },
  };
}

function devOptions(
  origin: string,
  extra: OutboundOptions = {},
): OutboundOptions {
  return {
    policy: outboundPolicyFromConfig({
      environment: "development",
      pluginDevOrigins: [origin],
    }),
    ...extra,
  };
}

function json(status: number, body: string, extra = ""): string {
  return `HTTP/1.1 ${status} X\r\ncontent-type: application/json\r\ncontent-length: ${
    new TextEncoder().encode(body).length
  }\r\n${extra}\r\n${body}`;
}

Deno.test("outboundFetch() reaches a listed development origin over http and sends a closed JSON request (OUT-018)", async () => {
  const server = rawServer(() => json(200, '{"ok":true}'));
  try {
    const result = await outboundFetch({
      url: `${server.origin}/svc/activate?x=1`,
      method: "POST",
      purpose: "activation",
      json: { kind: "activate", code: "c" },
      headers: { "idempotency-key": "k1" },
    }, devOptions(server.origin));
    equal(result.ok, true);
    if (result.ok) {
      equal(result.status, 200);
      equal(new TextDecoder().decode(result.body), '{"ok":true}');
    }
    const request = server.requests[0];
    match(request, /^POST \/svc\/activate\?x=1 HTTP\/1\.1\r\n/);
    match(request, /content-type: application\/json/);
    match(request, /idempotency-key: k1/);
    equal(/cookie/i.test(request), false);
    match(request, /\r\n\r\n\{"kind":"activate","code":"c"\}$/);
    // Not listed, or not development: refused before any connection.
    for (
      const policy of [
        { development: true, devOrigins: ["http://127.0.0.1:1"] },
        outboundPolicyFromConfig({
          environment: "production",
          pluginDevOrigins: [server.origin],
        }),
      ]
    ) {
      const refused = await outboundFetch(
        {
          url: `${server.origin}/svc/activate`,
          method: "POST",
          purpose: "activation",
        },
        { policy },
      );
      equal(refused.ok, false);
      if (!refused.ok) equal(refused.code, "url_not_https");
    }
    equal(server.requests.length, 1);
  } finally {
    await server.close();
  }
});

Deno.test("outboundFetch() never follows a redirect: remote_redirect_refused (OUT-016)", async () => {
  for (const status of [301, 302, 303, 307, 308]) {
    const server = rawServer(() =>
      `HTTP/1.1 ${status} Moved\r\nlocation: https://example.com/\r\ncontent-length: 0\r\n\r\n`
    );
    try {
      const result = await outboundFetch(
        { url: `${server.origin}/m.json`, method: "GET", purpose: "manifest" },
        devOptions(server.origin),
      );
      equal(result.ok, false);
      if (!result.ok) equal(result.code, "remote_redirect_refused");
      equal(server.requests.length, 1);
    } finally {
      await server.close();
    }
  }
});

Deno.test("outboundFetch() reads at most 32 KB for a manifest: the last byte accepted, the first over refused (OUT-020)", async () => {
  const limit = 32 * 1024;
  const shapes: [string, (n: number) => string][] = [
    ["content-length", (n) => json(200, "x".repeat(n))],
    ["chunked", (n) => {
      const half = Math.floor(n / 2);
      return `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n${
        half.toString(16)
      }\r\n${"x".repeat(half)}\r\n${(n - half).toString(16)}\r\n${
        "x".repeat(n - half)
      }\r\n0\r\n\r\n`;
    }],
    ["until close", (n) => `HTTP/1.1 200 OK\r\n\r\n${"x".repeat(n)}`],
  ];
  for (const [shape, make] of shapes) {
    for (const [size, ok] of [[limit, true], [limit + 1, false]] as const) {
      const server = rawServer(() => make(size));
      try {
        const result = await outboundFetch(
          {
            url: `${server.origin}/m.json`,
            method: "GET",
            purpose: "manifest",
          },
          devOptions(server.origin),
        );
        equal(result.ok, ok, `${shape} ${size}`);
        if (result.ok) equal(result.body.length, size);
        else equal(result.code, "plugin_response_invalid");
      } finally {
        await server.close();
      }
    }
  }
});

Deno.test("outboundFetch() counts an invocation's request, exchange and answer against one 64 KB budget (OUT-022)", async () => {
  const server = rawServer(() => json(200, "y".repeat(20_000)));
  try {
    let now = 1_000;
    const budget = new OutboundBudget(
      { maxBytes: 65_536, timeoutMs: 10_000 },
      () => now,
    );
    budget.spend(45_000); // the plugin's exchange request and answer
    const fits = await outboundFetch({
      url: `${server.origin}/op`,
      method: "POST",
      purpose: "invocation",
      json: { a: "b" },
    }, devOptions(server.origin, { budget }));
    equal(fits.ok, true);
    budget.spend(0);
    const tight = new OutboundBudget(
      { maxBytes: 65_536, timeoutMs: 10_000 },
      () => now,
    );
    tight.spend(46_000);
    const over = await outboundFetch({
      url: `${server.origin}/op`,
      method: "POST",
      purpose: "invocation",
      json: { a: "b" },
    }, devOptions(server.origin, { budget: tight }));
    equal(over.ok, false);
    if (!over.ok) equal(over.code, "plugin_response_invalid");
    now += 10_000;
    const late = await outboundFetch({
      url: `${server.origin}/op`,
      method: "POST",
      purpose: "invocation",
      json: {},
    }, devOptions(server.origin, { budget }));
    equal(late.ok, false);
    if (!late.ok) equal(late.code, "plugin_timeout");
  } finally {
    await server.close();
  }
});

Deno.test("outboundFetch() answers plugin_timeout when the plugin holds the answer past the deadline (injected timer)", async () => {
  const server = rawServer(() => null);
  let fire: (() => void) | undefined;
  let armedMs = 0;
  const startTimer: StartTimer = (ms, f) => {
    armedMs = ms;
    fire = f;
    return () => {
      fire = undefined;
    };
  };
  try {
    const pending = outboundFetch(
      { url: `${server.origin}/m.json`, method: "GET", purpose: "manifest" },
      devOptions(server.origin, { startTimer }),
    );
    // Wait until the plugin holds the request, then let the deadline pass.
    while (server.requests.length === 0) {
      await new Promise((r) => queueMicrotask(() => setTimeout(r, 0)));
    }
    equal(armedMs, 5_000);
    fire?.();
    const result = await pending;
    equal(result.ok, false);
    if (!result.ok) equal(result.code, "plugin_timeout");
  } finally {
    await server.close();
  }
});

Deno.test("outboundFetch() enforces a real short deadline with the default timer", async () => {
  const server = rawServer(() => null);
  try {
    const result = await outboundFetch(
      { url: `${server.origin}/m.json`, method: "GET", purpose: "invocation" },
      devOptions(server.origin, { limits: { timeoutMs: 50 } }),
    );
    equal(result.ok, false);
    if (!result.ok) equal(result.code, "plugin_timeout");
  } finally {
    await server.close();
  }
});

Deno.test("outboundFetch() classifies garbage as plugin_response_invalid and a silent close as plugin_unreachable", async () => {
  const cases: [string | Uint8Array, string][] = [
    ["garbage\r\n\r\n", "plugin_response_invalid"],
    ["HTTP/2 200\r\n\r\n", "plugin_response_invalid"],
    ["HTTP/1.1 200 OK\r\nbad header\r\n\r\n", "plugin_response_invalid"],
    [
      "HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc",
      "plugin_response_invalid",
    ],
    [
      "HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n",
      "plugin_response_invalid",
    ],
    [
      "HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\n",
      "plugin_response_invalid",
    ],
    [
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
      "plugin_response_invalid",
    ],
    [
      `HTTP/1.1 200 OK\r\nx: ${"a".repeat(20_000)}\r\n\r\n`,
      "plugin_response_invalid",
    ],
    ["", "plugin_unreachable"],
  ];
  for (const [reply, code] of cases) {
    const server = rawServer(() => reply);
    try {
      const result = await outboundFetch(
        { url: `${server.origin}/m.json`, method: "GET", purpose: "manifest" },
        devOptions(server.origin),
      );
      equal(result.ok, false, String(reply).slice(0, 40));
      if (!result.ok) equal(result.code, code, String(reply).slice(0, 40));
    } finally {
      await server.close();
    }
  }
});

Deno.test("outboundFetch() hands 4xx and 5xx answers to the caller and skips 100 Continue", async () => {
  const server = rawServer(() =>
    "HTTP/1.1 100 Continue\r\n\r\n" + json(503, '{"e":1}', "retry-after: 3\r\n")
  );
  try {
    const result = await outboundFetch(
      { url: `${server.origin}/m.json`, method: "GET", purpose: "manifest" },
      devOptions(server.origin),
    );
    equal(result.ok, true);
    if (result.ok) {
      equal(result.status, 503);
      equal(result.headers.get("retry-after"), "3");
    }
  } finally {
    await server.close();
  }
});

/** A throwaway CA and a leaf certificate for `names`, made with openssl; null where openssl is missing. */
async function testCertificates(
  names: string[],
): Promise<{ ca: string; cert: string; key: string } | null> {
  const dir = await Deno.makeTempDir();
  const run = async (args: string[]) => {
    const out = await new Deno.Command("openssl", {
      args,
      cwd: dir,
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  };
  try {
    const ec = [
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
    ];
    await run([
      "req",
      "-x509",
      ...ec,
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
      "-days",
      "2",
      "-subj",
      "/CN=Stave Test CA",
    ]);
    await run([
      "req",
      ...ec,
      "-keyout",
      "leaf.key",
      "-out",
      "leaf.csr",
      "-subj",
      `/CN=${names[0]}`,
    ]);
    await Deno.writeTextFile(
      `${dir}/ext.cnf`,
      `subjectAltName=${
        names.map((n) => `DNS:${n}`).join(",")
      }\nbasicConstraints=critical,CA:FALSE\nextendedKeyUsage=serverAuth\n`,
    );
    await run([
      "x509",
      "-req",
      "-in",
      "leaf.csr",
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      "leaf.pem",
      "-days",
      "2",
      "-extfile",
      "ext.cnf",
    ]);
    return {
      ca: await Deno.readTextFile(`${dir}/ca.pem`),
      cert: await Deno.readTextFile(`${dir}/leaf.pem`),
      key: await Deno.readTextFile(`${dir}/leaf.key`),
    };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("outboundFetch() connects over TLS to the checked address, verifying the certificate for the name (SNI), with no second lookup", async () => {
  const certs = await testCertificates(["plugin.example.com"]);
  if (certs === null) {
    console.warn("openssl is missing: the TLS path is not exercised");
    return;
  }
  const seen: { host: string | null }[] = [];
  const server = Deno.serve(
    {
      hostname: "127.0.0.1",
      port: 0,
      cert: certs.cert,
      key: certs.key,
      onListen() {},
    },
    (request) => {
      seen.push({ host: request.headers.get("host") });
      return Response.json({ manifest_version: 1 });
    },
  );
  try {
    const r = recorder(
      {
        "plugin.example.com": { A: ["93.184.215.14"] },
        "other.example.com": { A: ["93.184.215.15"] },
      },
      server.addr.port,
    );
    const result = await outboundFetch(
      {
        url: "https://plugin.example.com/svc/manifest.json",
        method: "GET",
        purpose: "manifest",
      },
      { resolveDns: r.resolveDns, connect: r.connect, caCerts: [certs.ca] },
    );
    equal(result.ok, true, JSON.stringify(result));
    if (result.ok) {
      equal(result.status, 200);
      equal(result.address, "93.184.215.14");
      deepEqual(JSON.parse(new TextDecoder().decode(result.body)), {
        manifest_version: 1,
      });
    }
    deepEqual(r.calls.connect, ["93.184.215.14:443"]);
    deepEqual(r.calls.dns.sort(), [
      "A plugin.example.com",
      "AAAA plugin.example.com",
    ]);
    equal(seen[0].host, "plugin.example.com");
    // A certificate for another name is refused even though the address was fine.
    const wrong = await outboundFetch(
      {
        url: "https://other.example.com/svc/manifest.json",
        method: "GET",
        purpose: "manifest",
      },
      { resolveDns: r.resolveDns, connect: r.connect, caCerts: [certs.ca] },
    );
    equal(wrong.ok, false);
    if (!wrong.ok) equal(wrong.code, "plugin_unreachable");
    // Without the test CA, the default roots refuse the certificate.
    const untrusted = await outboundFetch(
      {
        url: "https://plugin.example.com/svc/manifest.json",
        method: "GET",
        purpose: "manifest",
      },
      { resolveDns: r.resolveDns, connect: r.connect },
    );
    equal(untrusted.ok, false);
    equal(seen.length, 1);
  } finally {
    await server.shutdown();
  }
});

Deno.test("outboundFetch() refuses a redirect without reading its body, however large", async () => {
  const server = rawServer(() =>
    `HTTP/1.1 302 Found\r\nlocation: https://example.com/\r\ncontent-length: 10000000\r\n\r\n${
      "z".repeat(100_000)
    }`
  );
  try {
    const result = await outboundFetch(
      { url: `${server.origin}/m.json`, method: "GET", purpose: "manifest" },
      devOptions(server.origin),
    );
    equal(result.ok, false);
    if (!result.ok) equal(result.code, "remote_redirect_refused");
  } finally {
    await server.close();
  }
});

Deno.test("outboundFetch() never sends a credential or cookie header: a caller passing one is a bug", async () => {
  for (
    const name of ["Authorization", "cookie", "Proxy-Authorization", "Host"]
  ) {
    await rejects(
      outboundFetch({
        url: "https://plugin.example.com/x",
        method: "GET",
        purpose: "media_download",
        headers: { [name]: "x" },
      }),
      TypeError,
    );
  }
});

Deno.test("outboundFetch() times out a connection that never opens, and closes it if it opens later", async () => {
  let finish: (conn: Deno.TcpConn) => void = () => {};
  const server = rawServer(() => json(200, "{}"));
  let fire: () => void = () => {};
  try {
    const pending = outboundFetch(
      {
        url: "https://plugin.example.com/m.json",
        method: "GET",
        purpose: "manifest",
      },
      {
        resolveDns: (_n, type) =>
          Promise.resolve(type === "A" ? ["93.184.215.14"] : []),
        connect: () => new Promise((resolve) => (finish = resolve)),
        startTimer: (_ms, f) => {
          fire = f;
          return () => {};
        },
      },
    );
    await new Promise((r) => setTimeout(r, 0));
    fire();
    const result = await pending;
    equal(result.ok, false);
    if (!result.ok) equal(result.code, "plugin_timeout");
    const late = await Deno.connect({
      hostname: "127.0.0.1",
      port: server.port,
    });
    finish(late);
    await new Promise((r) => setTimeout(r, 0));
    // Closed by outboundFetch: closing again throws BadResource.
    let closedAlready = false;
    try {
      late.close();
    } catch {
      closedAlready = true;
    }
    equal(closedAlready, true);
  } finally {
    await server.close();
  }
});

Deno.test("outboundFetch() gives an invocation answer exactly what the 64 KB budget leaves: the last byte accepted, the first over refused (OUT-022)", async () => {
  const request = { a: "b" }; // 9 bytes of JSON
  const exchange = 30_000;
  const room = 65_536 - exchange - 9;
  for (const [size, accepted] of [[room, true], [room + 1, false]] as const) {
    const server = rawServer(() => json(200, "q".repeat(size)));
    try {
      const budget = new OutboundBudget(
        { maxBytes: 65_536, timeoutMs: 10_000 },
        () => 0,
      );
      budget.spend(exchange);
      const result = await outboundFetch({
        url: `${server.origin}/op`,
        method: "POST",
        purpose: "invocation",
        json: request,
      }, devOptions(server.origin, { budget }));
      equal(result.ok, accepted, String(size));
      if (!result.ok) equal(result.code, "plugin_response_invalid");
    } finally {
      await server.close();
    }
  }
});

async function readAll(stream: ReadableStream<Uint8Array>): Promise<number> {
  let total = 0;
  for await (const chunk of stream) total += chunk.byteLength;
  return total;
}

Deno.test("outboundDownload() streams a media file within its byte limit, the last byte accepted and the first over refused (OUT-023)", async () => {
  const size = 200_000;
  for (
    const [shape, reply] of [
      [
        "content-length",
        `HTTP/1.1 200 OK\r\ncontent-length: ${size}\r\n\r\n${"m".repeat(size)}`,
      ],
      ["until close", `HTTP/1.1 200 OK\r\n\r\n${"m".repeat(size)}`],
      [
        "chunked",
        `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n${
          (size / 2).toString(16)
        }\r\n${"m".repeat(size / 2)}\r\n${(size / 2).toString(16)}\r\n${
          "m".repeat(size / 2)
        }\r\n0\r\n\r\n`,
      ],
    ] as const
  ) {
    const server = rawServer(() => reply);
    try {
      const at = await outboundDownload(
        {
          url: `${server.origin}/d.jpg`,
          method: "GET",
          purpose: "media_download",
        },
        devOptions(server.origin, { limits: { maxBytes: size } }),
      );
      ok(at.ok, shape);
      if (at.ok) equal(await readAll(at.body), size, shape);
      const over = await outboundDownload(
        {
          url: `${server.origin}/d.jpg`,
          method: "GET",
          purpose: "media_download",
        },
        devOptions(server.origin, { limits: { maxBytes: size - 1 } }),
      );
      if (shape === "content-length") {
        // A declared length over the limit is refused before any body is read.
        equal(over.ok, false);
        if (!over.ok) equal(over.code, "plugin_response_invalid");
      } else {
        ok(over.ok, shape);
        if (over.ok) {
          await rejects(
            readAll(over.body),
            (error: unknown) =>
              error instanceof OutboundStreamError &&
              error.code === "plugin_response_invalid",
          );
        }
      }
    } finally {
      await server.close();
    }
  }
});

Deno.test("outboundDownload() errors the stream with plugin_timeout when the body stalls past the deadline, and refuses redirects", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const origin = `http://127.0.0.1:${port}`;
  const accepted = (async () => {
    const conn = await listener.accept();
    const buf = new Uint8Array(4096);
    await conn.read(buf);
    await conn.write(
      new TextEncoder().encode(
        "HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc",
      ),
    );
    return conn;
  })();
  let fire: () => void = () => {};
  try {
    const result = await outboundDownload(
      { url: `${origin}/d.jpg`, method: "GET", purpose: "media_download" },
      devOptions(origin, {
        startTimer: (_ms, f) => {
          fire = f;
          return () => {};
        },
      }),
    );
    ok(result.ok);
    if (!result.ok) return;
    const reader = result.body.getReader();
    const first = await reader.read();
    equal(first.value?.byteLength, 3);
    const stalled = reader.read();
    fire();
    await rejects(
      stalled,
      (error: unknown) =>
        error instanceof OutboundStreamError && error.code === "plugin_timeout",
    );
  } finally {
    (await accepted).close();
    listener.close();
  }
  const redirect = rawServer(() =>
    "HTTP/1.1 302 Found\r\nlocation: /x\r\n\r\n"
  );
  try {
    const refused = await outboundDownload(
      {
        url: `${redirect.origin}/d.jpg`,
        method: "GET",
        purpose: "media_download",
      },
      devOptions(redirect.origin),
    );
    equal(refused.ok, false);
    if (!refused.ok) equal(refused.code, "remote_redirect_refused");
  } finally {
    await redirect.close();
  }
});
