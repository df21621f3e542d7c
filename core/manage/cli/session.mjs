// Part of svc-manage.mjs (joined by build.ts): the saved login and the HTTP helpers.
// deno-lint-ignore-file no-unused-vars -- the parts are joined into one file; each alone looks unused
// ---- Saved login: one file per origin, user-only, refresh token only. ----

function loginDir() {
  if (process.env.SVC_CONFIG_DIR) return process.env.SVC_CONFIG_DIR;
  const base = process.env.XDG_CONFIG_HOME || join(homedir(), ".config");
  return join(base, "svc-manage");
}

function loginPath(origin) {
  const name = origin.replace(/[^A-Za-z0-9.-]/g, "_");
  return join(loginDir(), `${name}.json`);
}

function readLogin(origin) {
  try {
    const saved = JSON.parse(readFileSync(loginPath(origin), "utf8"));
    return saved && saved.origin === origin ? saved : null;
  } catch {
    return null;
  }
}

/** Makes the saved-login directory, or narrows an existing one that others may read, to the user alone. */
function ensureLoginDir() {
  mkdirSync(loginDir(), { recursive: true, mode: 0o700 });
  if ((statSync(loginDir()).mode & 0o077) !== 0) chmodSync(loginDir(), 0o700);
}

/** Writes a new file beside the old one and renames it over, so a reader never sees half a file. */
function writeLogin(origin, login) {
  ensureLoginDir();
  const path = loginPath(origin);
  const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileSync(temp, JSON.stringify(login, null, 2) + "\n", {
    mode: 0o600,
    flag: "wx",
  });
  renameSync(temp, path);
}

async function withLock(origin, fn) {
  ensureLoginDir();
  const lock = `${loginPath(origin)}.lock`;
  const started = Date.now();
  for (;;) {
    try {
      closeSync(openSync(lock, "wx", 0o600));
      break;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      let age = 0;
      try {
        age = Date.now() - statSync(lock).mtimeMs;
      } catch {
        continue;
      }
      // A lock older than 2 minutes belongs to a process that died holding it.
      if (age > LOCK_STALE_MS) {
        rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() - started > LOCK_STALE_MS + 5000) {
        throw new UsageError("Cannot take the login lock");
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

// ---- HTTP ----

async function send(url, init) {
  try {
    return await fetch(url, init);
  } catch (error) {
    throw new UsageError(
      `Cannot reach ${new URL(url).origin}: ${
        error.cause?.code ?? error.message
      }`,
    );
  }
}

async function readJson(response) {
  const text = await response.text();
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return { error: { code: "not_json", message: text.slice(0, 200) } };
  }
}

async function metadataOf(origin) {
  const response = await send(
    `${origin}/.well-known/oauth-authorization-server`,
    { headers: { accept: "application/json" } },
  );
  if (!response.ok) {
    throw new UsageError(
      `${origin} publishes no authorization server metadata (${response.status})`,
    );
  }
  const metadata = await readJson(response);
  if (!metadata || metadata.issuer !== origin) {
    throw new UsageError(
      `The authorization server's issuer is not ${origin}: refusing to sign in`,
    );
  }
  if (!(metadata.code_challenge_methods_supported ?? []).includes("S256")) {
    throw new UsageError("The authorization server does not support PKCE S256");
  }
  return metadata;
}

async function tokenRequest(metadata, form) {
  const response = await send(metadata.token_endpoint, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    },
    body: new URLSearchParams(form).toString(),
  });
  const body = await readJson(response);
  return { ok: response.ok, status: response.status, body };
}

/** The bearer for a command: SVC_MANAGEMENT_TOKEN, else a fresh access token from the saved login. */
async function credentialFor(origin) {
  const token = process.env.SVC_MANAGEMENT_TOKEN;
  if (token) return { token, source: "SVC_MANAGEMENT_TOKEN" };
  if (!readLogin(origin)) {
    throw new UsageError(
      `Not signed in to ${origin}: run "svc-manage.mjs login --url ${origin}" or set SVC_MANAGEMENT_TOKEN`,
    );
  }
  const metadata = await metadataOf(origin);
  return await withLock(origin, async () => {
    const login = readLogin(origin);
    if (!login) throw new UsageError(`Not signed in to ${origin}`);
    const answer = await tokenRequest(metadata, {
      grant_type: "refresh_token",
      refresh_token: login.refresh_token,
      client_id: login.client_id,
    });
    if (!answer.ok) {
      throw new UsageError(
        `The saved login for ${origin} is no longer valid (expired or revoked): run login again`,
      );
    }
    writeLogin(origin, { ...login, refresh_token: answer.body.refresh_token });
    return { token: answer.body.access_token, source: "saved login" };
  });
}
