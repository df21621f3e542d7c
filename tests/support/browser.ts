// Headless Chromium for end-to-end tests, driven through playwright-core with Debian's chromium.
import { type Browser, chromium, type Page } from "playwright-core";

/** Where Debian installs Chromium; playwright never downloads a browser of its own here. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/** How long any one wait on the page may take before the test fails. */
export const BROWSER_TIMEOUT_MS = 15_000;

/** True when the Chromium binary is installed, so browser tests can skip themselves otherwise. */
export function chromiumInstalled(path = CHROMIUM_PATH): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * Why this run skips the browser tests, or null when it drives Chromium. CI runs the suite twice,
 * on PostgreSQL and then on PGlite, and sets `BROWSER_TESTS=skip` for the first: pages and islands
 * do not change with the engine, the admin's server side is tested on both engines without a
 * browser, and driving Chromium twice cost about 3 of CI's 40 minutes on a slow day.
 */
function browserSkipReason(path = CHROMIUM_PATH): string | null {
  if (Deno.env.get("BROWSER_TESTS") === "skip") return "BROWSER_TESTS=skip";
  return chromiumInstalled(path)
    ? null
    : `no Chromium at ${path} (apt-get install chromium)`;
}

/** True when this file's browser tests run; otherwise says once on stderr why `what` skips. */
export function browserTestsRun(what: string): boolean {
  const reason = browserSkipReason();
  if (reason) console.warn(`Skipping ${what}: ${reason}`);
  return reason === null;
}

/**
 * Launches headless Chromium with the flags a root container and a quiet test need: no sandbox
 * (root), no GPU, and nothing that calls out to the network on its own.
 */
export async function launchChromium(): Promise<Browser> {
  return await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    timeout: BROWSER_TIMEOUT_MS,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** A server on a free port of 127.0.0.1 and its base URL. */
export interface LocalServer {
  baseUrl: string;
  port: number;
  close(): Promise<void>;
}

/** Serves `fetch` on 127.0.0.1 on a port the system picks. */
export function serveLocally(
  fetch: (
    request: Request,
    info: Deno.ServeHandlerInfo,
  ) => Response | Promise<Response>,
): LocalServer {
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    fetch,
  );
  const port = server.addr.port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    close: () => server.shutdown(),
  };
}

/** Signs in through the admin's own form, as a person would, and waits for the dashboard. */
export async function signInInChromium(
  page: Page,
  base: string,
  email: string,
  password: string,
): Promise<void> {
  await page.goto(`${base}/admin/sign-in`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await Promise.all([
    page.waitForURL(`${base}/admin`),
    page.getByRole("button", { name: "Sign in" }).click(),
  ]);
}
