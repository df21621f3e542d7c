// The tick's client for one installation: the token the tick read once answers the first request;
// a rotation meanwhile still works, because plugin_unauthorized makes the client read the stored
// token again (spec 1 part 7 rule 3; PLG-029).
import { deepEqual, equal } from "node:assert/strict";
import { openSchedulerDb } from "./db.ts";
import { installationClient } from "./tick.ts";
import { TokenBox } from "./token_box.ts";

const NOW = new Date("2026-11-23T10:00:00Z");

Deno.test("installationClient() sends the token the tick read, and after plugin_unauthorized the stored one (PLG-029)", async () => {
  const db = await openSchedulerDb({ memory: true });
  const box = new TokenBox(crypto.getRandomValues(new Uint8Array(32)));
  const stale = `svp_${"a".repeat(43)}`;
  const fresh = `svp_${"b".repeat(43)}`;
  const origin = "http://127.0.0.1:9";
  await db.insertInto("installations").values({
    id: "inst-1",
    site_id: "site-1",
    service_url: origin,
    // Rotated after the tick read the token: the store holds the new one.
    token_sealed: await box.seal(fresh),
    created_at: NOW,
    updated_at: NOW,
  }).execute();
  const sent: (string | null)[] = [];
  const fetch = (_url: string | URL | Request, init?: RequestInit) => {
    const auth = new Headers(init?.headers).get("authorization");
    sent.push(auth);
    const ok = auth === `Bearer ${fresh}`;
    return Promise.resolve(Response.json({
      outcome: ok
        ? { code: "transition_applied", message: "Published", retry: false }
        : { code: "plugin_unauthorized", message: "No", retry: false },
    }, { status: ok ? 200 : 401 }));
  };
  const client = installationClient(
    {
      db,
      box,
      servicePolicy: { development: true, devOrigins: [origin] },
      fetch: fetch as typeof globalThis.fetch,
      now: () => NOW.getTime(),
    },
    { id: "inst-1", service_url: origin },
    { maxAttempts: 2 },
    stale,
  );
  const result = await client.transition("c1", "published", {
    kind: "publish",
    expected_current_version_id: "v1",
    expected_workflow_revision: 1,
    delegation_id: "d1",
  }, { idempotencyKey: "sched:inst-1:s1:r1" });
  equal(result.kind, "success");
  deepEqual(sent, [`Bearer ${stale}`, `Bearer ${fresh}`]);
  await db.destroy();
});
