// The demo site served on 127.0.0.1 for the JavaScript client's tests, with a site API token.
import { ok } from "node:assert/strict";
import { issueSiteToken } from "../../core/public/site_tokens.ts";
import { openPublicWorld, type PublicWorld } from "../public/helpers.ts";

/** The demo site behind a real HTTP server. */
export interface ServedDemo {
  world: PublicWorld;
  /** The site's `/v1` address (`http://localhost:<port>/v1`; the demo answers on localhost). */
  url: string;
  /** A site API token reading every public model and the private `notes`. */
  token: string;
  close(): Promise<void>;
}

/** Opens the demo site and serves it on 127.0.0.1 on a free port. */
export async function serveDemo(): Promise<ServedDemo> {
  const world = await openPublicWorld();
  const issued = await issueSiteToken(world.services, {
    siteId: world.siteId,
    name: "client-test",
    modelIds: [await world.modelId("notes")],
  });
  ok(issued.ok);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    world.app.fetch,
  );
  return {
    world,
    url: `http://localhost:${server.addr.port}/v1`,
    token: issued.token,
    close: async () => {
      await server.shutdown();
      await world.close();
    },
  };
}
