// Test support for the Management API: an app with a site, its admin, and credentials to call it with.
import type { Scope } from "../../core/access/scopes.ts";
import { insertCredential } from "../../core/credentials/credential_store.ts";
import { createInstallation } from "../../core/sites/installation.ts";
import {
  openTestApp,
  type OpenTestAppOptions,
  type TestApp,
} from "../support/app.ts";

/** Base path of the API under test. */
export const BASE = "http://localhost/api/manage/v1";

/** A test app with one site, its administrator and a credential of that administrator. */
export interface ManageFixture extends TestApp {
  siteId: string;
  adminId: string;
  /** Secret of a credential holding every scope this routes use. */
  secret: string;
  /** Id of that credential. */
  credentialId: string;
  /** Creates another credential on the site for `creatorId` (default: the admin). */
  credential(
    scopes: Scope[],
    options?: { creatorId?: string; siteId?: string },
  ): Promise<{ id: string; secret: string }>;
  /** Calls the API: `call("GET", "/site")`, with the fixture's secret unless `secret` is given. */
  call(
    method: string,
    path: string,
    options?: {
      body?: unknown;
      rawBody?: string;
      key?: string;
      secret?: string | null;
      headers?: Record<string, string>;
    },
  ): Promise<Response>;
}

/** Opens an app with a site `manage.test` (languages en, de) and an administrator credential. */
export async function openManageApp(
  options: OpenTestAppOptions = {},
): Promise<ManageFixture> {
  const t = await openTestApp(options);
  const created = await createInstallation(t.services, {
    domain: "manage.test",
    slug: "manage",
    name: "Manage test",
    locales: ["en", "de"],
    adminEmail: "admin@manage.test",
    credential: {
      name: "script",
      scopes: ["content:read", "settings:write"],
    },
  });
  if (!created.ok) throw new Error(created.message);
  const fixture: ManageFixture = {
    ...t,
    siteId: created.site.id,
    adminId: created.admin.id,
    secret: created.management_credential!.secret,
    credentialId: created.management_credential!.id,
    async credential(scopes, options = {}) {
      const { credential, secret } = await insertCredential(
        t.services.db,
        t.clock,
        {
          siteId: options.siteId ?? created.site.id,
          creatorId: options.creatorId ?? created.admin.id,
          name: "another",
          scopes,
          models: null,
        },
      );
      return { id: credential.id, secret };
    },
    call(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      const secret = options.secret === undefined
        ? fixture.secret
        : options.secret;
      if (secret !== null) headers.authorization = `Bearer ${secret}`;
      if (options.key !== undefined) headers["idempotency-key"] = options.key;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) body = JSON.stringify(options.body);
      if (body !== undefined) headers["content-type"] = "application/json";
      return Promise.resolve(
        t.app.request(`${BASE}${path}`, { method, headers, body }),
      );
    },
  };
  return fixture;
}

/** The error body of a refusal, after checking its status. */
export async function refusal(
  response: Response,
): Promise<{ code: string; message: string; [k: string]: unknown }> {
  const body = await response.json();
  if (!body?.error?.code) {
    throw new Error(`Expected an error body, got ${JSON.stringify(body)}`);
  }
  return body.error;
}

/** Runs `fn` with a fresh fixture and closes it afterwards. */
export async function withManageApp(
  fn: (t: ManageFixture) => Promise<void>,
): Promise<void> {
  const t = await openManageApp();
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}
