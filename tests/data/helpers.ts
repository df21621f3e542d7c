// Test support for imports and exports: the demo site beside a fresh site, credentials on both,
// and the calls that drive a job to its end the way a script would.
import assert from "node:assert/strict";
import { seedDefaultRoles } from "../../core/access/roles.ts";
import type { Scope } from "../../core/access/scopes.ts";
import { insertCredential } from "../../core/credentials/credential_store.ts";
import { setupDemo } from "../admin/demo_helpers.ts";
import {
  insertPerson,
  PASSWORD,
  setMemberPermissions,
} from "../admin/helpers.ts";
import type { TestApp } from "../support/app.ts";
import { insertSite } from "../support/sites.ts";

const BASE = "http://localhost/api/manage/v1";

/** Every scope an import of the demo needs. */
export const IMPORT_SCOPES: Scope[] = [
  "data:import",
  "schema:write",
  "settings:write",
  "media:write",
  "content:write",
  "lifecycle:publish",
];

/** Calls the Management API with one credential. */
export type Call = (
  method: string,
  path: string,
  options?: { body?: unknown; bytes?: Uint8Array; key?: string; type?: string },
) => Promise<Response>;

/** The demo site (`demo`) and a fresh site with only English (`fresh`), each with an administrator. */
export interface TwoSites {
  t: TestApp;
  demoSiteId: string;
  demoAdminId: string;
  freshSiteId: string;
  freshAdminId: string;
  /** A credential of `creatorId` on `siteId` and a caller using it. */
  caller(siteId: string, creatorId: string, scopes: Scope[]): Promise<Call>;
  close(): Promise<void>;
}

export async function twoSites(): Promise<TwoSites> {
  const demo = await setupDemo({ media: true });
  const t = demo.t;
  const freshSiteId = await insertSite(t.services.db, {
    domain: "fresh.test",
    slug: "fresh",
    languages: ["en"],
  });
  const freshAdminId = await insertPerson(t.services.db, {
    email: "grace@example.com",
    password: PASSWORD,
    displayName: "Grace Hopper",
    siteIds: [freshSiteId],
  });
  const roles = await seedDefaultRoles(t.services.db, freshSiteId, t.clock);
  await setMemberPermissions(
    t.services.db,
    freshAdminId,
    roles.administrator.permissions,
  );
  return {
    t,
    demoSiteId: demo.siteId,
    demoAdminId: demo.adminId,
    freshSiteId,
    freshAdminId,
    async caller(siteId, creatorId, scopes) {
      const { secret } = await insertCredential(t.services.db, t.clock, {
        siteId,
        creatorId,
        name: `data ${crypto.randomUUID().slice(0, 8)}`,
        scopes,
        models: null,
      });
      return callerOf(t, secret);
    },
    close: () => t.close(),
  };
}

/** A caller holding `secret`. */
export function callerOf(t: TestApp, secret: string): Call {
  return (method, path, options = {}) => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${secret}`,
    };
    if (options.key !== undefined) headers["idempotency-key"] = options.key;
    let body: BodyInit | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] = "application/json";
    }
    if (options.bytes !== undefined) {
      body = options.bytes as Uint8Array<ArrayBuffer>;
      headers["content-type"] = options.type ?? "application/octet-stream";
    }
    return Promise.resolve(
      t.app.request(`${BASE}${path}`, { method, headers, body }),
    );
  };
}

let keys = 0;
/** A fresh Idempotency-Key. */
export const key = () => `k-${++keys}-${crypto.randomUUID()}`;

/** Answers the body after checking the status. */
export async function ok<T = Record<string, unknown>>(
  response: Response,
  status = 200,
): Promise<T> {
  const body = await response.json();
  assert.equal(response.status, status, JSON.stringify(body));
  return body as T;
}

/** Builds a whole-site export and answers its bytes (checked against the job's SHA-256). */
export async function exportSite(call: Call): Promise<Uint8Array> {
  let job = await ok(
    await call("POST", "/exports", { body: {}, key: key() }),
    201,
  );
  for (let i = 0; i < 100 && job.state === "building"; i++) {
    job = await ok(
      await call("POST", `/exports/${job.id}/advance`, { key: key() }),
    );
  }
  assert.equal(job.state, "ready");
  const parts: Uint8Array[] = [];
  let page: number | null = 1;
  while (page !== null) {
    const chunk: {
      content_base64: string;
      next_page: number | null;
      sha256: string;
    } = await ok(await call("GET", `/exports/${job.id}/chunk?page=${page}`));
    parts.push(
      Uint8Array.from(atob(chunk.content_base64), (c) => c.charCodeAt(0)),
    );
    page = chunk.next_page;
  }
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.byteLength;
  }
  const file = job.file as { sha256: string; bytes: number };
  assert.equal(bytes.byteLength, file.bytes);
  assert.equal(await sha256(bytes), file.sha256);
  return bytes;
}

export async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    bytes as Uint8Array<ArrayBuffer>,
  );
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/** Creates a source and an import, sends `archive` in 5 MiB parts and completes it. */
export async function startImport(
  call: Call,
  archive: Uint8Array,
  options: { publish?: "as_archived" | "drafts" } = {},
): Promise<Record<string, unknown>> {
  const source = await ok(
    await call("POST", "/imports/sources", {
      body: {
        name: `source ${crypto.randomUUID().slice(0, 8)}`,
        format: "stave-archive",
        options: { publish: options.publish ?? "as_archived" },
      },
      key: key(),
    }),
    201,
  );
  const job = await ok(
    await call("POST", "/imports", {
      body: { source_id: source.id },
      key: key(),
    }),
    201,
  );
  const size = 5 * 1024 * 1024;
  const parts = Math.max(1, Math.ceil(archive.byteLength / size));
  for (let n = 1; n <= parts; n++) {
    await ok(
      await call("PUT", `/imports/${job.id}/archive/parts/${n}`, {
        bytes: archive.slice((n - 1) * size, n * size),
        key: key(),
      }),
    );
  }
  return await ok(
    await call("POST", `/imports/${job.id}/archive/complete`, {
      body: { sha256: await sha256(archive), parts },
      key: key(),
    }),
  );
}

/** Advances an import until it stops (blocked, completed, failed). */
export async function runImport(
  call: Call,
  id: string,
  options: { recheck?: boolean } = {},
): Promise<Record<string, unknown>> {
  let job: Record<string, unknown> = {};
  let recheck = options.recheck ?? false;
  for (let i = 0; i < 200; i++) {
    job = await ok(
      await call(
        "POST",
        `/imports/${id}/advance${recheck ? "?recheck=true" : ""}`,
        { key: key() },
      ),
    );
    recheck = false;
    if (
      ["blocked", "completed", "failed", "canceled"].includes(
        job.state as string,
      )
    ) {
      return job;
    }
  }
  throw new Error(`Import ${id} did not stop: ${JSON.stringify(job)}`);
}
