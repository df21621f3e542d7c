import { deepEqual, equal } from "node:assert/strict";
import { Hono } from "hono";
import type { Services } from "../services.ts";
import type { AppEnv } from "../web/env.ts";
import { handleError } from "../web/errors.ts";
import {
  clearSessionCookie,
  clientAddress,
  requireSignedIn,
  setSessionCookie,
} from "./session_middleware.ts";

const TOKEN = "A".repeat(43);

function appWith(options: {
  secureCookies?: boolean;
  responseKind?: "html" | "json";
  signedIn?: boolean;
}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", async function fakeContainer(c, next) {
    c.set("services", {
      config: { secureCookies: options.secureCookies ?? false },
    } as unknown as Services);
    c.set("responseKind", options.responseKind ?? "html");
    c.set(
      "user",
      options.signedIn
        ? { id: "u", email: "a@b.c", displayName: "A", sessionId: "s" }
        : undefined,
    );
    await next();
  });
  app.onError((error, c) => handleError(error, c));
  app.get("/set", (c) => {
    setSessionCookie(c, TOKEN);
    return c.text("ok");
  });
  app.get("/clear", (c) => {
    clearSessionCookie(c);
    return c.text("ok");
  });
  app.get("/guarded", requireSignedIn, (c) => c.text("inside"));
  app.get("/address", (c) => c.text(clientAddress(c)));
  return app;
}

Deno.test("setSessionCookie() sets HttpOnly, SameSite=Lax, Path=/, Max-Age 12 h, and Secure only when configured", async () => {
  const plain = await appWith({}).request("/set");
  deepEqual(plain.headers.getSetCookie(), [
    `stave_session=${TOKEN}; Max-Age=43200; Path=/; HttpOnly; SameSite=Lax`,
  ]);
  const secure = await appWith({ secureCookies: true }).request("/set");
  deepEqual(secure.headers.getSetCookie(), [
    `stave_session=${TOKEN}; Max-Age=43200; Path=/; HttpOnly; Secure; SameSite=Lax`,
  ]);
});

Deno.test("clearSessionCookie() expires the cookie with the scope it was set with", async () => {
  const res = await appWith({ secureCookies: true }).request("/clear");
  deepEqual(res.headers.getSetCookie(), [
    "stave_session=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax",
  ]);
});

Deno.test("requireSignedIn() sends signed-out page requests to sign-in and refuses others with 401", async () => {
  const page = await appWith({}).request("/guarded");
  equal(page.status, 303);
  equal(page.headers.get("location"), "/admin/sign-in");
  const api = await appWith({ responseKind: "json" }).request("/guarded");
  equal(api.status, 401);
  deepEqual(await api.json(), {
    error: { code: "unauthenticated", message: "Sign in first" },
  });
  const inside = await appWith({ signedIn: true }).request("/guarded");
  equal(await inside.text(), "inside");
});

Deno.test("clientAddress() answers the socket's peer, never a forwarding header", async () => {
  const app = appWith({});
  const info = {
    remoteAddr: { transport: "tcp", hostname: "192.0.2.9", port: 4000 },
  };
  equal(await (await app.request("/address", {}, info)).text(), "192.0.2.9");
  equal(
    await (await app.request("/address", {
      headers: { "x-forwarded-for": "198.51.100.1" },
    })).text(),
    "unknown",
  );
});
