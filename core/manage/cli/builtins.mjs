// Part of svc-manage.mjs (joined by build.ts): the built-in commands login, status, logout and mcp.
// deno-lint-ignore-file no-unused-vars -- the parts are joined into one file; each alone looks unused
// ---- Built-in commands ----

async function status(origin) {
  const { token, source } = await credentialFor(origin);
  const response = await send(`${origin}${CONTRACT.basePath}/site`, {
    headers: { authorization: `Bearer ${token}`, accept: "application/json" },
  });
  const site = await readJson(response);
  if (response.status === 401) {
    throw new UsageError(`The credential from ${source} was refused (401)`);
  }
  if (!response.ok) {
    throw new Refused(`Refused ${response.status}: ${site?.error?.message}`);
  }
  const login = source === "saved login" ? readLogin(origin) : null;
  process.stdout.write(
    JSON.stringify(
      {
        origin,
        credential: source,
        site: { id: site.id, name: site.name, domain: site.domain },
        ...(login ? { scopes: login.scopes, client_id: login.client_id } : {}),
      },
      null,
      2,
    ) + "\n",
  );
}

async function logout(origin) {
  const login = readLogin(origin);
  if (!login) throw new UsageError(`Not signed in to ${origin}`);
  const metadata = await metadataOf(origin);
  const response = await send(metadata.revocation_endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      token: login.refresh_token,
      token_type_hint: "refresh_token",
      client_id: login.client_id,
    }).toString(),
  });
  if (!response.ok) {
    throw new Refused(
      `The service did not revoke the login (${response.status}); the saved login is kept`,
    );
  }
  rmSync(loginPath(origin), { force: true });
  say(`Signed out of ${origin}`);
}

function challengeOf(verifier) {
  return createHash("sha256").update(verifier).digest("base64url");
}

function openBrowser(url) {
  const opener = process.platform === "darwin"
    ? ["open", [url]]
    : process.platform === "win32"
    ? ["cmd", ["/c", "start", "", url]]
    : ["xdg-open", [url]];
  try {
    const child = spawn(opener[0], opener[1], {
      stdio: "ignore",
      detached: true,
    });
    child.on("error", () => {});
    child.unref();
  } catch {
    // The address is printed either way.
  }
}

/**
 * Listens on 127.0.0.1 for exactly one good `GET /callback`: the waiting state, the issuer
 * as `iss` and one code. Other paths are 404; an answer with another state is refused and
 * the login keeps waiting, so a stray request cannot end it.
 */
function startListener(state, issuer) {
  let settle;
  const code = new Promise((resolve, reject) => {
    settle = { resolve, reject };
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    if (req.method !== "GET" || url.pathname !== "/callback") {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
      return;
    }
    const one = (name) => {
      const values = url.searchParams.getAll(name);
      return values.length === 1 ? values[0] : null;
    };
    if (one("state") !== state) {
      res.writeHead(400, { "content-type": "text/plain" }).end(
        "This sign-in answer does not belong to the waiting login",
      );
      return;
    }
    const finish = (status, text, outcome) => {
      res.writeHead(status, { "content-type": "text/plain; charset=utf-8" })
        .end(text);
      clearTimeout(timer);
      server.close();
      outcome();
    };
    if (one("iss") !== issuer) {
      return finish(
        400,
        "The answer names another issuer; sign-in stopped",
        () =>
          settle.reject(new UsageError("The callback named another issuer")),
      );
    }
    if (one("error") !== null) {
      return finish(
        200,
        "Sign-in cancelled. You can close this tab.",
        () => settle.reject(new Refused("Sign-in was cancelled")),
      );
    }
    const value = one("code");
    if (value === null) {
      return finish(
        400,
        "The answer carries no single code; sign-in stopped",
        () =>
          settle.reject(new UsageError("The callback carried no single code")),
      );
    }
    finish(
      200,
      "Signed in. You can close this tab and return to the terminal.",
      () => settle.resolve(value),
    );
  });
  const timer = setTimeout(() => {
    server.close();
    settle.reject(
      new UsageError("Gave up waiting for the sign-in after 5 minutes"),
    );
  }, LOGIN_GIVE_UP_MS);
  const port = new Promise((resolve, reject) => {
    server.on("error", (error) => reject(new UsageError(error.message)));
    server.listen(0, "127.0.0.1", () => resolve(server.address().port));
  });
  const stop = () => {
    clearTimeout(timer);
    server.close();
  };
  return { port, code, stop };
}

async function login(origin, flags) {
  if (process.env.SVC_MANAGEMENT_TOKEN) {
    say("SVC_MANAGEMENT_TOKEN is set: it wins over any saved login");
  }
  const metadata = await metadataOf(origin);
  const state = randomBytes(24).toString("base64url");
  const verifier = randomBytes(48).toString("base64url");
  const listener = startListener(state, metadata.issuer);
  const port = await listener.port;
  const redirectUri = `http://127.0.0.1:${port}/callback`;
  const registered = await send(metadata.registration_endpoint, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({
      client_name: "svc-manage.mjs",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    }),
  });
  const client = await readJson(registered);
  if (!registered.ok || !client?.client_id) {
    listener.stop();
    throw new Refused(`Client registration was refused (${registered.status})`);
  }
  const address = new URL(metadata.authorization_endpoint);
  address.search = new URLSearchParams({
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: redirectUri,
    code_challenge: challengeOf(verifier),
    code_challenge_method: "S256",
    state,
    ...(flags.get("scope")
      ? { scope: String(flags.get("scope")).replaceAll(",", " ") }
      : {}),
  }).toString();
  say(`Open this address to sign in:\n${address}`);
  if (flags.get("no-open") !== true) openBrowser(address.toString());
  const code = await listener.code;
  const answer = await tokenRequest(metadata, {
    grant_type: "authorization_code",
    code,
    redirect_uri: redirectUri,
    client_id: client.client_id,
    code_verifier: verifier,
  });
  if (!answer.ok) {
    throw new Refused(
      `The code was refused: ${answer.body?.error ?? answer.status}`,
    );
  }
  writeLogin(origin, {
    origin,
    client_id: client.client_id,
    site: answer.body.site ?? null,
    scopes: String(answer.body.scope ?? "").split(" ").filter(Boolean),
    refresh_token: answer.body.refresh_token,
  });
  say(
    `Signed in to ${origin}${
      answer.body.site ? ` (site ${answer.body.site.domain})` : ""
    }`,
  );
}

/** Reads JSON-RPC lines on stdin, posts each to the remote endpoint, writes each answer as a line. */
async function mcp(origin) {
  let bearer = (await credentialFor(origin)).token;
  let version = null;
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      process.stdout.write(
        JSON.stringify({
          jsonrpc: "2.0",
          id: null,
          error: { code: -32700, message: "Parse error" },
        }) + "\n",
      );
      continue;
    }
    const post = () =>
      send(`${origin}/api/manage/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${bearer}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(version ? { "mcp-protocol-version": version } : {}),
        },
        body: line,
      });
    let response = await post();
    if (response.status === 401 && !process.env.SVC_MANAGEMENT_TOKEN) {
      // A saved login's access token is short-lived: renew once and resend.
      bearer = (await credentialFor(origin)).token;
      response = await post();
    }
    const answer = await readJson(response);
    if (response.status === 202 || answer === null) continue;
    if (answer.jsonrpc !== "2.0" && message?.id !== undefined) {
      process.stdout.write(
        JSON.stringify({
          jsonrpc: "2.0",
          id: message.id,
          error: {
            code: -32603,
            message: `The service answered ${response.status}: ${
              answer?.error?.message ?? ""
            }`,
          },
        }) + "\n",
      );
      continue;
    }
    if (message?.method === "initialize" && answer.result?.protocolVersion) {
      version = answer.result.protocolVersion;
    }
    process.stdout.write(JSON.stringify(answer) + "\n");
  }
}
