// Readiness and shutdown of a real main.ts process: /health/ready checks PostgreSQL, KV and
// storage within a bound, and SIGTERM lets requests in flight finish before the pools close.
// The process's media storage is a small S3 stand-in written here, so the test knows the
// moment a readiness request is inside the process and can hold it there across SIGTERM.
import { deepEqual, equal, match } from "node:assert/strict";
import { privateProcessEnv, spawnService } from "../support/process.ts";

/** An S3 endpoint that answers every request 404 (no such object), holding readiness probes on request. */
function holdingStorage() {
  const arrived: Array<() => void> = [];
  const waiting: Array<(answer: Response) => void> = [];
  let hold = false;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      const notFound = () => new Response(null, { status: 404 });
      // Only the readiness probe is held: other work of the process may reach storage too.
      if (!hold || !request.url.includes("readiness-probe")) return notFound();
      arrived.shift()?.();
      return new Promise<Response>((resolve) =>
        waiting.push(() => resolve(notFound()))
      );
    },
  );
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    /** Holds readiness probes from now on; resolves when the next one arrives. */
    holdNext(): Promise<void> {
      hold = true;
      return new Promise((resolve) => arrived.push(resolve));
    },
    release() {
      hold = false;
      for (const answer of waiting.splice(0)) {
        answer(new Response(null, { status: 404 }));
      }
    },
    close: () => server.shutdown(),
  };
}

Deno.test("/health/ready answers 200 with every store checked; SIGTERM finishes a request in flight, which reports stopping, and the process exits cleanly", async () => {
  const storage = holdingStorage();
  const penv = await privateProcessEnv({
    MEDIA_S3_ENDPOINT: storage.origin,
    MEDIA_S3_BUCKET: "stave-test",
    MEDIA_S3_ACCESS_KEY_ID: "test",
    MEDIA_S3_SECRET_ACCESS_KEY: "test-secret",
    MEDIA_S3_REGION: "us-east-1",
  });
  const service = await spawnService(penv.env);
  try {
    const ready = await fetch(
      `http://127.0.0.1:${service.port}/health/ready`,
    );
    equal(ready.status, 200);
    equal(ready.headers.get("cache-control"), "no-store");
    deepEqual(await ready.json(), {
      ready: true,
      stopping: false,
      checks: { database: "ok", kv: "ok", storage: "ok" },
    });

    // A readiness request held inside the process at its storage check.
    const arrived = storage.holdNext();
    const inFlight = fetch(`http://127.0.0.1:${service.port}/health/ready`);
    await arrived;
    const stopped = service.stop();
    // The listener closes at once: a new connection is refused while the held request runs.
    await waitUntilRefused(service.port);
    storage.release();

    const answer = await inFlight;
    equal(answer.status, 503);
    equal(answer.headers.get("retry-after"), "5");
    const body = await answer.json();
    equal(body.stopping, true);
    equal(body.ready, false);
    const { code } = await stopped;
    equal(code, 0);
    match(service.stdout(), /Stopping \(SIGTERM\)[\s\S]*Stopped/);
  } finally {
    storage.release();
    await service.stop().catch(() => {});
    await storage.close();
    await penv.cleanup();
  }
});

/** Resolves once a connection to `port` is refused; bounded by count, not by the clock. */
async function waitUntilRefused(port: number): Promise<void> {
  for (let attempt = 0; attempt < 5_000; attempt++) {
    try {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      conn.close();
      await new Promise((resolve) => queueMicrotask(() => resolve(null)));
    } catch {
      return;
    }
  }
  throw new Error(`port ${port} still accepts connections after SIGTERM`);
}
