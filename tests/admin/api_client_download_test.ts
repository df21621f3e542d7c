// Settings → API offers svc-manage.mjs for download and names the MCP address (CLI-001, MAPI-022).
import { equal, match } from "node:assert/strict";
import { administratorPermissions } from "../../core/access/default_roles.ts";
import {
  CookieJar,
  PASSWORD,
  request,
  setMemberPermissions,
  setupAdmin,
  signInAs,
} from "./helpers.ts";

Deno.test("Settings → API links svc-manage.mjs, which downloads as the generated file, for signed-in people only (CLI-001)", async () => {
  const { t, userId, email } = await setupAdmin();
  try {
    await setMemberPermissions(
      t.services.db,
      userId,
      administratorPermissions(),
    );
    const anonymous = await request(
      t,
      new CookieJar(),
      "/admin/settings/api-client",
    );
    equal(anonymous.status, 401);
    await anonymous.body?.cancel();
    const jar = new CookieJar();
    await signInAs(t, jar, { email, password: PASSWORD });
    const page = await (await request(t, jar, "/admin/settings/api")).text();
    match(
      page,
      /href="\/admin\/settings\/api-client"[^>]*>\s*Download svc-manage\.mjs/,
    );
    match(page, /\/api\/manage\/mcp<\/code>/);
    const file = await request(t, jar, "/admin/settings/api-client");
    equal(file.status, 200);
    match(
      file.headers.get("content-disposition")!,
      /filename="svc-manage\.mjs"/,
    );
    const committed = await Deno.readTextFile(
      new URL("../../generated/svc-manage.mjs", import.meta.url),
    );
    equal(await file.text(), committed);
  } finally {
    await t.close();
  }
});
