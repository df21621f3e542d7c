// PUB-042: the public read API has no rate limit of its own (configure one on the serving zone).
import { equal } from "node:assert/strict";
import { openPublicWorld } from "./helpers.ts";

Deno.test("a burst of 300 concurrent public reads from one client is never answered 429 (PUB-042)", async () => {
  const w = await openPublicWorld();
  try {
    const statuses = await Promise.all(
      Array.from(
        { length: 300 },
        (_, i) => w.get(i % 2 ? "/v1/posts?limit=1" : "/v1/tags?limit=1"),
      ),
    );
    const counts = new Map<number, number>();
    for (const res of statuses) {
      counts.set(res.status, (counts.get(res.status) ?? 0) + 1);
      await res.body?.cancel();
    }
    equal(counts.get(200), 300, JSON.stringify([...counts]));
  } finally {
    await w.close();
  }
});
