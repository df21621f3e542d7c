import { equal, match, throws } from "node:assert/strict";
import { DataFolderInUseError, lockDataFolders } from "./data_lock.ts";

Deno.test("lockDataFolders() lets one holder in, names the holder's pid to the next, and frees on release", async () => {
  const folder = await Deno.makeTempDir({ prefix: "stave-lock-" });
  try {
    const held = lockDataFolders([folder, `${folder}/`]);
    equal(held.paths.length, 1, "one folder named twice is locked once");
    throws(
      () => lockDataFolders([folder]),
      (e: Error) =>
        e instanceof DataFolderInUseError && e.holderPid === Deno.pid &&
        e.message.includes(folder) && e.message.includes(`process ${Deno.pid}`),
    );
    held.release();
    const again = lockDataFolders([folder]);
    again.release();
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("lockDataFolders() releases what it took when a later folder is held", async () => {
  const a = await Deno.makeTempDir({ prefix: "stave-lock-" });
  const b = await Deno.makeTempDir({ prefix: "stave-lock-" });
  try {
    const holdB = lockDataFolders([b]);
    throws(() => lockDataFolders([a, b]), DataFolderInUseError);
    const holdA = lockDataFolders([a]);
    match(holdA.paths[0], /stave\.lock$/);
    holdA.release();
    holdB.release();
  } finally {
    await Deno.remove(a, { recursive: true });
    await Deno.remove(b, { recursive: true });
  }
});
