// The example plugin (plugins/example) against the service's own modules: its manifest validates, the guarded fetch hands it a token, and it exchanges invocations and launches through the SDK.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parseManifest } from "../../core/plugins/manifest.ts";
import { parseOperationAnswer } from "../../core/plugins/answers.ts";
import {
  answerJson,
  outboundFetch,
  outboundPolicyFromConfig,
} from "../../core/plugins/outbound.ts";
import { startExamplePlugin } from "../../plugins/example/plugin.ts";

const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const token = (c: string) => `svp_${c.repeat(43)}`;

/** A stand-in for the service's plugin API: records calls, answers exchanges for one token. */
function fakeService(expectedToken: () => string) {
  const calls: { path: string; auth: string | null; body: string }[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (req) => {
      const path = new URL(req.url).pathname;
      const auth = req.headers.get("authorization");
      calls.push({ path, auth, body: await req.text() });
      if (auth !== `Bearer ${expectedToken()}`) {
        return Response.json({
          outcome: { code: "plugin_unauthorized", message: "No", retry: false },
        }, { status: 401 });
      }
      if (path === "/api/plugin/v1/invocations/exchange") {
        return Response.json({
          data: { delegation_id: "dlg_1", operation: "hello" },
        });
      }
      if (path === "/api/plugin/v1/launch/exchange") {
        return Response.json({
          data: { delegation_id: "dlg_2", action: "inspect" },
        });
      }
      return Response.json({
        outcome: { code: "content_not_found", message: "No", retry: false },
      }, {
        status: 404,
      });
    },
  );
  const origin = `http://127.0.0.1:${server.addr.port}`;
  return { origin, calls, close: () => server.shutdown() };
}

Deno.test("example plugin: its manifest passes parseManifest() and the published JSON Schema (PLG-033, SOP-001 shape)", async () => {
  const plugin = startExamplePlugin({ adminSecret: "0123456789abcdef" });
  try {
    const policy = outboundPolicyFromConfig({
      environment: "development",
      pluginDevOrigins: [plugin.origin],
    });
    const fetched = await outboundFetch(
      { url: plugin.manifestUrl, method: "GET", purpose: "manifest" },
      { policy },
    );
    ok(fetched.ok);
    if (!fetched.ok) return;
    const json = answerJson(fetched);
    ok(json.ok);
    if (!json.ok) return;
    const parsed = parseManifest(json.json, {
      manifestUrl: plugin.manifestUrl,
    });
    ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.issues));
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(
      JSON.parse(
        await Deno.readTextFile(`${root}/generated/manifest-v1.schema.json`),
      ),
    );
    ok(validate(json.json), JSON.stringify(validate.errors));
  } finally {
    await plugin.close();
  }
});

Deno.test("example plugin: operator codes need the admin secret; a hand-off code works once, for its purpose, before it expires (PLG-003, PLG-025, PLG-030)", async () => {
  let now = 1_800_000_000_000;
  const plugin = startExamplePlugin({
    adminSecret: "0123456789abcdef",
    now: () => now,
    servicePolicy: { development: true, devOrigins: ["http://127.0.0.1:9"] },
  });
  const policy = outboundPolicyFromConfig({
    environment: "development",
    pluginDevOrigins: [plugin.origin],
  });
  const handoff = (json: unknown) =>
    outboundFetch(
      {
        url: `${plugin.origin}/svc/activate`,
        method: "POST",
        purpose: "activation",
        json,
      },
      { policy },
    );
  const status = async (json: unknown) => {
    const r = await handoff(json);
    return r.ok ? r.status : r.code;
  };
  try {
    const noAuth = await fetch(`${plugin.origin}/admin/activation-codes`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    equal(noAuth.status, 401);
    await noAuth.body?.cancel();
    const issued = await fetch(`${plugin.origin}/admin/activation-codes`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: "Bearer 0123456789abcdef",
      },
      body: "{}",
    });
    equal(issued.status, 201);
    const { code, purpose, installation_id, expires_at } = await issued.json();
    deepEqual([purpose, installation_id, expires_at], [
      "activate",
      null,
      now + 900_000,
    ]);

    const body = {
      kind: "activate",
      code,
      token: token("a"),
      installation_id: "inst_1",
      site_id: "site_1",
      service_url: "http://127.0.0.1:9",
    };
    equal(await status({ ...body, extra: 1 }), 400);
    equal(await status(body), 204);
    equal(plugin.installations.get("inst_1")?.token, token("a"));
    equal(await status(body), 403); // used once already

    const again = await plugin.issueCode("activate");
    equal(await status({ ...body, code: again.code }), 409); // already active

    const rotation = await plugin.issueCode("rotate", "inst_1");
    equal(
      await status({ ...body, kind: "activate", code: rotation.code }),
      403,
    );
    equal(
      await status({
        ...body,
        kind: "rotate",
        installation_id: "inst_2",
        code: rotation.code,
      }),
      403,
    );
    now += 900_000; // expired at the edge
    equal(
      await status({
        ...body,
        kind: "rotate",
        code: rotation.code,
        token: token("b"),
      }),
      403,
    );
    const fresh = await plugin.issueCode("rotate", "inst_1");
    now += 899_999; // last valid millisecond
    equal(
      await status({
        ...body,
        kind: "rotate",
        code: fresh.code,
        token: token("b"),
      }),
      204,
    );
    equal(plugin.installations.get("inst_1")?.token, token("b"));
  } finally {
    await plugin.close();
  }
});

Deno.test("example plugin: an operation exchanges its invocation with the stored token and answers blocks the service accepts (PEXT-011..PEXT-013)", async () => {
  let current = token("a");
  const service = fakeService(() => current);
  const plugin = startExamplePlugin({
    adminSecret: "0123456789abcdef",
    servicePolicy: { development: true, devOrigins: [service.origin] },
  });
  const policy = outboundPolicyFromConfig({
    environment: "development",
    pluginDevOrigins: [plugin.origin],
  });
  try {
    const { code } = await plugin.issueCode("activate");
    const activated = await outboundFetch({
      url: `${plugin.origin}/svc/activate`,
      method: "POST",
      purpose: "activation",
      json: {
        kind: "activate",
        code,
        token: current,
        installation_id: "inst_1",
        site_id: "site_1",
        service_url: service.origin,
      },
    }, { policy });
    ok(activated.ok && activated.status === 204);
    // PLG-031: the activation handler makes no protocol call of its own.
    equal(service.calls.length, 0);

    const envelope = {
      installation_id: "inst_1",
      invocation_id: "inv_1",
      code: "svi_code",
      expires_at: Date.now() + 60_000,
    };
    const invoke = async (json: unknown) => {
      const r = await outboundFetch(
        {
          url: `${plugin.origin}/svc/operations/hello`,
          method: "POST",
          purpose: "invocation",
          json,
        },
        { policy },
      );
      ok(r.ok);
      const parsed = r.ok ? answerJson(r) : r;
      ok(parsed.ok);
      return parsed.ok ? parsed.json : null;
    };
    const answer = await invoke(envelope);
    const manifest = parseManifest(
      await (await fetch(plugin.manifestUrl)).json(),
      { manifestUrl: plugin.manifestUrl },
    );
    ok(manifest.ok);
    if (!manifest.ok) return;
    const checked = parseOperationAnswer(
      answer,
      manifest.manifest.operations[0],
    );
    ok(checked.ok, JSON.stringify(checked));
    equal(service.calls[0].path, "/api/plugin/v1/invocations/exchange");
    equal(service.calls[0].auth, `Bearer ${token("a")}`);
    deepEqual(JSON.parse(service.calls[0].body), { code: "svi_code" });

    // An envelope with an unknown key is refused by name, and nothing is exchanged.
    const refused = await invoke({ ...envelope, entry: "e1" });
    equal((refused as { status: string }).status, "refused");
    equal(service.calls.length, 1);

    // The launch page exchanges the code server-side and sends no referrer.
    const page = await fetch(
      `${plugin.origin}/installations/inst_1?svc_launch=svl_abc`,
    );
    equal(page.status, 200);
    equal(page.headers.get("referrer-policy"), "no-referrer");
    match(await page.text(), /Launched: inspect/);
    equal(service.calls[1].path, "/api/plugin/v1/launch/exchange");
    deepEqual(JSON.parse(service.calls[1].body), { code: "svl_abc" });

    // After uninstall the service refuses the token: the plugin says so, no retry.
    current = token("z");
    const after = await invoke({ ...envelope, invocation_id: "inv_2" });
    equal((after as { code: string }).code, "exchange_refused");
    equal(service.calls.length, 3);
  } finally {
    await plugin.close();
    await service.close();
  }
});
