// The generation of announced commits: unknown while nobody listens, moved by every
// announcement and by every listener that comes or goes.
import { equal, notEqual } from "node:assert/strict";
import { ChangeFeed } from "./change_feed.ts";

Deno.test("ChangeFeed knows no generation until a connection listens, and none once all are gone", async () => {
  const feed = new ChangeFeed();
  equal(feed.generation(), null);
  feed.listenerUp();
  const first = feed.generation();
  notEqual(first, null);
  equal(feed.generation(), first, "nothing announced: the same generation");
  const moved = feed.moved();
  feed.changed();
  await moved;
  notEqual(feed.generation(), first);
  equal(feed.announced, 1);
  feed.listenerUp();
  const two = feed.generation();
  feed.listenerDown();
  notEqual(
    feed.generation(),
    two,
    "a listener gone: notices may have been lost",
  );
  feed.listenerDown();
  equal(feed.generation(), null);
});
