// End to end in headless Chromium: sign in through the form, land on the dashboard, sign out.
import { deepEqual, equal, ok } from "node:assert/strict";
import type { Browser } from "playwright-core";
import { openTestApp } from "../support/app.ts";
import {
  BROWSER_TIMEOUT_MS,
  browserTestsRun,
  launchChromium,
  type LocalServer,
  serveLocally,
} from "../support/browser.ts";
import { insertSite } from "../support/sites.ts";
import { insertPerson, PASSWORD } from "./helpers.ts";

const runsBrowser = browserTestsRun("the admin browser test");

Deno.test({
  name:
    "the admin in Chromium: sign in through the form, land on the /admin dashboard, sign out",
  ignore: !runsBrowser,
  async fn() {
    const t = await openTestApp({ islands: true });
    let server: LocalServer | undefined;
    let browser: Browser | undefined;
    try {
      const siteId = await insertSite(t.services.db, {
        domain: "127.0.0.1",
        slug: "browser-site",
        languages: ["en", "de", "fr"],
      });
      await insertPerson(t.services.db, {
        email: "grace@example.com",
        password: PASSWORD,
        displayName: "Grace Hopper",
        siteIds: [siteId],
      });
      server = serveLocally((request, info) => t.app.fetch(request, info));
      const base = server.baseUrl;
      browser = await launchChromium();
      const context = await browser.newContext();
      const page = await context.newPage();
      page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
      page.setDefaultNavigationTimeout(BROWSER_TIMEOUT_MS);
      const problems: string[] = [];
      page.on("pageerror", (error) => problems.push(`page error: ${error}`));
      page.on("console", (message) => {
        if (message.type() === "error" && !/404/.test(message.text())) {
          problems.push(`console error: ${message.text()}`);
        }
      });

      // Signed out, /admin sends the browser to the form.
      await page.goto(`${base}/admin`);
      equal(page.url(), `${base}/admin/sign-in`);
      await page.getByLabel("Email").fill("Grace@Example.com");
      await page.getByLabel("Password").fill(PASSWORD);
      await Promise.all([
        page.waitForURL(`${base}/admin`),
        page.getByRole("button", { name: "Sign in" }).click(),
      ]);

      // The session cookie as the browser keeps it.
      const session = (await context.cookies()).find((c) =>
        c.name === "stave_session"
      );
      ok(session, "expected the browser to keep the session cookie");
      deepEqual(
        {
          httpOnly: session.httpOnly,
          sameSite: session.sameSite,
          path: session.path,
          secure: session.secure,
        },
        { httpOnly: true, sameSite: "Lax", path: "/", secure: false },
      );
      equal(
        await page.evaluate(() => document.cookie.includes("stave_session")),
        false,
      );

      // The dashboard inside the shell.
      equal(
        await page.getByRole("heading", { level: 1 }).textContent(),
        "Dashboard",
      );
      await page.getByRole("navigation", { name: "Admin" }).waitFor();

      // Sign out through the header form: back to the sign-in page, and /admin stays closed.
      await Promise.all([
        page.waitForURL(`${base}/admin/sign-in`),
        page.getByRole("button", { name: "Sign out" }).click(),
      ]);
      equal(
        (await context.cookies()).some((c) => c.name === "stave_session"),
        false,
      );
      await page.goto(`${base}/admin`);
      equal(page.url(), `${base}/admin/sign-in`);
      deepEqual(problems, []);
    } finally {
      await browser?.close();
      await server?.close();
      await t.close();
    }
  },
});
