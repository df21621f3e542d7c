// `deno task svc credential` while the service runs: the running service holds the data folder,
// so the command asks it, proving access to the folder with the owner-only secret file (issue 44 item 6).
import { equal, match, ok } from "node:assert/strict";
import {
  LOCAL_CONTROL_FILE,
  LOCAL_CREDENTIAL_PATH,
} from "../../core/credentials/local_control.ts";
import {
  privateProcessEnv,
  runDeno,
  spawnService,
} from "../support/process.ts";

const svc = (...args: string[]) => [
  "run",
  "-A",
  "--unstable-kv",
  "cli/svc.ts",
  ...args,
];
const credentialArgs = (name: string, scopes: string) =>
  svc(
    "credential",
    "--json",
    "--domain",
    "cms.example.com",
    "--admin-email",
    "ops@example.com",
    "--name",
    name,
    "--scopes",
    scopes,
  );

Deno.test("svc credential while the service runs makes a working credential through the service; a wrong local secret is refused; the secret file is owner-only and removed at stop", async () => {
  const p = await privateProcessEnv({ DEMO_SITE: "false" });
  try {
    const boot = await runDeno(
      svc(
        "bootstrap",
        "--json",
        "--domain",
        "cms.example.com",
        "--locales",
        "en",
        "--admin-email",
        "ops@example.com",
      ),
      p.env,
    );
    equal(boot.code, 0, boot.stderr);
    const embedded = !p.env.DATABASE_URL;
    const service = await spawnService(p.env);
    const controlPath = `${p.dataDir}/${LOCAL_CONTROL_FILE}`;
    let stopped = { code: -1, stderr: "" };
    try {
      // Only the owner may read the secret: whoever can is already able to read the store.
      equal((await Deno.stat(controlPath)).mode! & 0o777, 0o600);
      const made = await runDeno(
        credentialArgs("agent", "content:read"),
        p.env,
      );
      equal(made.code, 0, made.stderr);
      const out = JSON.parse(made.stdout).management_credential;
      match(out.secret, /^svm_[A-Za-z0-9_-]{43}$/);
      equal(out.name, "agent");
      // The credential works against the running service at once.
      const models = await fetch(
        `http://127.0.0.1:${service.port}/api/manage/v1/models`,
        {
          headers: {
            host: "cms.example.com",
            authorization: `Bearer ${out.secret}`,
          },
        },
      );
      equal(models.status, 200, await models.clone().text());
      await models.body?.cancel();

      // A refusal of the service comes back as the command's own one line, exit 1.
      const badScope = await runDeno(credentialArgs("x", "everything"), p.env);
      equal(badScope.code, 1);
      match(badScope.stderr, /invalid_request/);
      equal(badScope.stdout, "");

      // Without the secret (or with another) the path creates nothing.
      const control = JSON.parse(await Deno.readTextFile(controlPath));
      const body = JSON.stringify({
        domain: "cms.example.com",
        admin_email: "ops@example.com",
        name: "intruder",
        scopes: ["content:read"],
        models: null,
      });
      for (
        const authorization of [
          undefined,
          `Bearer ${control.secret}x`,
          `Bearer ${out.secret}`,
        ]
      ) {
        const refused = await fetch(
          `${control.origin}${LOCAL_CREDENTIAL_PATH}`,
          {
            method: "POST",
            headers: {
              "content-type": "application/json",
              ...(authorization ? { authorization } : {}),
            },
            body,
          },
        );
        equal(refused.status, 401);
        equal((await refused.json()).error.code, "unauthenticated");
      }
      // A closed body: an unknown key is refused before anything is made.
      const extra = await fetch(`${control.origin}${LOCAL_CREDENTIAL_PATH}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${control.secret}`,
        },
        body: JSON.stringify({ ...JSON.parse(body), admin: true }),
      });
      equal(extra.status, 400);
      equal((await extra.json()).error.code, "invalid_request");

      // A stale file (another secret) makes the command fail with a clear line, not a credential.
      // Embedded only: on PostgreSQL the store is not locked, so the command opens it itself.
      if (embedded) {
        await Deno.writeTextFile(
          controlPath,
          JSON.stringify({ ...control, secret: "stave_local_wrong" }),
        );
        const stale = await runDeno(credentialArgs("y", "content:read"), p.env);
        equal(stale.code, 1);
        match(stale.stderr, /local secret/);
        await Deno.writeTextFile(controlPath, JSON.stringify(control));
      }
    } finally {
      stopped = await service.stop();
    }
    equal(stopped.code, 0, stopped.stderr);
    // The secret lives only as long as the service.
    await Deno.stat(controlPath).then(
      () => ok(false, "local-control.json outlived the service"),
      (error) => ok(error instanceof Deno.errors.NotFound),
    );
    // Stopped: the command opens the store itself again.
    const after = await runDeno(credentialArgs("later", "content:read"), p.env);
    equal(after.code, 0, after.stderr);
    equal(JSON.parse(after.stdout).management_credential.name, "later");
  } finally {
    await p.cleanup();
  }
});
