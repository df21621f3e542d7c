// The scheduling plugin beside the demo, run on a worker thread: its embedded database starts
// (seconds of WebAssembly on a first start) without holding up the service's own requests.
// The service asks it to start, tick, issue an activation code and close; each question gets one
// answer naming its id.
/// <reference lib="deno.worker" />
import {
  type RunningScheduler,
  startScheduler,
} from "../../plugins/scheduling/server.ts";

/** A question from the service. */
export type CompanionQuestion =
  | {
    id: number;
    call: "start";
    dir: string;
    port: number;
    adminSecret: string;
    tokenKey: Uint8Array;
    devOrigins: string[];
  }
  | { id: number; call: "tick" | "issueCode" | "close" };

/** The worker's answer to question `id`. */
export type CompanionAnswer =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; message: string };

let running: { scheduler: RunningScheduler; kv: Deno.Kv } | null = null;

async function answer(question: CompanionQuestion): Promise<unknown> {
  if (question.call === "start") {
    const kv = await Deno.openKv(`${question.dir}/kv.sqlite3`);
    try {
      const scheduler = await startScheduler({
        hostname: "127.0.0.1",
        port: question.port,
        adminSecret: question.adminSecret,
        tokenKey: question.tokenKey,
        database: { dataDir: question.dir },
        kv,
        servicePolicy: { development: true, devOrigins: question.devOrigins },
      });
      running = { scheduler, kv };
      return { origin: scheduler.origin, manifestUrl: scheduler.manifestUrl };
    } catch (error) {
      kv.close();
      throw error;
    }
  }
  if (!running) throw new Error("The scheduling plugin has not started");
  if (question.call === "tick") return await running.scheduler.tick();
  if (question.call === "issueCode") return await running.scheduler.issueCode();
  await running.scheduler.close();
  running.kv.close();
  running = null;
  return null;
}

self.onmessage = async (event: MessageEvent<CompanionQuestion>) => {
  const { id } = event.data;
  try {
    const value = await answer(event.data);
    self.postMessage({ id, ok: true, value } satisfies CompanionAnswer);
  } catch (error) {
    self.postMessage(
      {
        id,
        ok: false,
        message: error instanceof Error ? error.message : String(error),
      } satisfies CompanionAnswer,
    );
  }
};
