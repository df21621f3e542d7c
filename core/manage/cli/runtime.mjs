// The hand-written runtime of svc-manage.mjs; scripts/gen_manage.ts fills CONTRACT from the contract and writes the file.
// svc-manage.mjs: the Stave Management API from a terminal, one command per operation (spec 2 part 4.4).
// Needs Node.js 18+ or Deno; no dependencies. `svc-manage.mjs --help` lists the commands.
import { Buffer } from "node:buffer";
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import { homedir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createInterface } from "node:readline";

const CONTRACT = /* CONTRACT */ null;

const EXIT_OK = 0;
const EXIT_REFUSED = 1;
const EXIT_USAGE = 2;
const LOGIN_GIVE_UP_MS = Number(process.env.SVC_LOGIN_TIMEOUT_MS) ||
  5 * 60 * 1000;
const LOCK_STALE_MS = 2 * 60 * 1000;
const MAX_RETRIES = 5;

/** A problem of usage, network or credential: one line on stderr, exit 2. */
class UsageError extends Error {}
/** A refusal of the service, or a cancelled login: exit 1. */
class Refused extends Error {}

const BUILT_IN = {
  login: "Sign in through the browser and save the login for this origin",
  status: "Show the origin, where the credential comes from, and its site",
  logout: "Revoke the saved login, then delete it",
  mcp: "Run a stdio MCP server that forwards to the service's MCP endpoint",
};

function say(line) {
  process.stderr.write(`${line}\n`);
}

/** Reads `--name value`, `--name=value` and bare flags; the rest are positionals. */
function parseArgs(argv) {
  const flags = new Map();
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) {
      rest.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    let value;
    if (eq !== -1) value = arg.slice(eq + 1);
    else if (
      ["help", "all", "no-open", "follow"].includes(name)
    ) value = true;
    else if (i + 1 < argv.length) value = argv[++i];
    else throw new UsageError(`Option --${name} needs a value`);
    if (flags.has(name)) {
      throw new UsageError(`Option --${name} is given twice`);
    }
    flags.set(name, value);
  }
  return { flags, rest };
}

/** The origin from --url or SVC_URL: https, or http on a loopback host only. */
function originOf(flags) {
  const raw = flags.get("url") ?? process.env.SVC_URL;
  if (!raw) {
    throw new UsageError(
      "Name the service with --url https://cms.example.com or SVC_URL",
    );
  }
  let url;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`Cannot read the address "${raw}": expected a URL`);
  }
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw new UsageError(
      `Refusing "${url.origin}": use https (http only on localhost, 127.0.0.1 or [::1])`,
    );
  }
  if (url.pathname !== "/" || url.search || url.hash) {
    throw new UsageError(
      `Give the service's origin only, such as ${url.origin}`,
    );
  }
  return url.origin;
}

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

// ---- Commands of the contract ----

function findCommand(name) {
  return CONTRACT.commands.find((c) => c.command === name);
}

async function readBody(flags) {
  const raw = flags.get("body");
  if (raw === undefined) return undefined;
  let text = raw;
  if (raw === "-") {
    const chunks = [];
    for await (const chunk of process.stdin) chunks.push(chunk);
    text = Buffer.concat(chunks).toString("utf8");
  } else if (raw.startsWith("@")) {
    try {
      text = readFileSync(raw.slice(1), "utf8");
    } catch {
      throw new UsageError(`Cannot read the body file "${raw.slice(1)}"`);
    }
  }
  try {
    const value = JSON.parse(text);
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new Error("not an object");
    }
    return value;
  } catch {
    throw new UsageError(
      "--body must be a JSON object (or @file, or - for stdin)",
    );
  }
}

function newKey() {
  return randomBytes(16).toString("base64url");
}

function waitSeconds(response) {
  const seconds = Number(response.headers.get("retry-after"));
  return Number.isFinite(seconds) && seconds >= 0
    ? Math.min(seconds, 60)
    : null;
}

/** Sends one request; on 429, and on 409 idempotency_in_progress with Retry-After, waits and sends it again with the same key. */
async function request(
  origin,
  bearer,
  command,
  { path, query, body, bytes, key },
) {
  const url = new URL(`${origin}${CONTRACT.basePath}${path}`);
  for (const [name, value] of Object.entries(query)) {
    url.searchParams.set(name, value);
  }
  const headers = {
    authorization: `Bearer ${bearer}`,
    accept: "application/json",
  };
  if (key !== undefined) headers["idempotency-key"] = key;
  if (body !== undefined) headers["content-type"] = "application/json";
  if (bytes !== undefined) {
    headers["content-type"] = "application/octet-stream";
  }
  for (let attempt = 0;; attempt++) {
    const response = await send(url, {
      method: command.method,
      headers,
      body: bytes ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const answer = await readJson(response);
    const wait = waitSeconds(response);
    const busy = response.status === 429 ||
      (response.status === 409 &&
        answer?.error?.code === "idempotency_in_progress");
    if (busy && wait !== null && attempt < MAX_RETRIES) {
      say(`Busy (${response.status}): retrying in ${wait} s with the same key`);
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
      continue;
    }
    return { status: response.status, body: answer };
  }
}

async function runCommand(command, flags, origin) {
  let path = command.path;
  const query = {};
  // upload-import-part --file without --part sends the whole file in 5 MiB parts.
  const wholeFile = command.command === "upload-import-part" &&
    !flags.has("part") && typeof flags.get("file") === "string";
  const values = {};
  for (const option of command.options) {
    const value = flags.get(option.flag.slice(2));
    flags.delete(option.flag.slice(2));
    if (value === undefined || value === true) {
      if (option.required && !(wholeFile && option.name === "part")) {
        throw new UsageError(
          `${command.command} needs ${option.flag} <${option.type}>`,
        );
      }
      continue;
    }
    values[option.name] = value;
    if (option.in === "path") {
      path = path.replace(`{${option.name}}`, encodeURIComponent(value));
    } else query[option.name] = value;
  }
  const file = flags.get("file");
  const out = flags.get("out");
  const follow = flags.get("follow") === true;
  for (const name of ["file", "out", "follow"]) flags.delete(name);
  if (command.binary && typeof file !== "string") {
    throw new UsageError(`${command.command} needs --file <path>`);
  }
  if (!command.binary && file !== undefined) {
    throw new UsageError(`${command.command} takes no --file`);
  }
  if (out !== undefined && (!command.byteRange || typeof out !== "string")) {
    throw new UsageError(
      command.byteRange
        ? "--out needs a file path"
        : `${command.command} reads no file: --out does not apply`,
    );
  }
  if (follow && !command.follow) {
    throw new UsageError(
      `${command.command} is not a job step: --follow does not apply`,
    );
  }
  let bytes;
  if (typeof file === "string") {
    try {
      bytes = readFileSync(file);
    } catch {
      throw new UsageError(`Cannot read the file "${file}"`);
    }
  }
  const all = flags.get("all") === true;
  flags.delete("all");
  if (all && !command.pages) {
    throw new UsageError(
      `${command.command} has no pages: --all does not apply`,
    );
  }
  let body;
  if (command.body) {
    body = await readBody(flags);
    if (body === undefined) {
      throw new UsageError(`${command.command} needs --body '<JSON object>'`);
    }
  } else if (flags.has("body")) {
    throw new UsageError(`${command.command} takes no --body`);
  }
  flags.delete("body");
  let key;
  if (command.key) {
    key = flags.get("key") ?? newKey();
    if (!/^[\x21-\x7E]{1,128}$/.test(key)) {
      throw new UsageError("--key must be 1 to 128 visible ASCII characters");
    }
    say(`Idempotency-Key: ${key}`);
  } else if (flags.has("key")) {
    throw new UsageError(
      `${command.command} is not a write: --key does not apply`,
    );
  }
  flags.delete("key");
  const unknown = [...flags.keys()];
  if (unknown.length > 0) {
    throw new UsageError(
      `Unknown option --${unknown[0]} for ${command.command} (see --help)`,
    );
  }
  const { token } = await credentialFor(origin);
  let answer;
  if (wholeFile) {
    answer = await uploadWholeArchive(origin, token, values.id, bytes, key);
  } else if (out !== undefined) {
    answer = await readWholeFile(origin, token, command, path, query, out);
  } else {
    answer = await request(origin, token, command, {
      path,
      query,
      body,
      bytes,
      key,
    });
  }
  while (follow && answer.status < 400 && !jobStopped(answer.body)) {
    say(
      `${answer.body.kind} ${answer.body.id}: ${answer.body.state}, next ${answer.body.phase}`,
    );
    const next = newKey();
    say(`Idempotency-Key: ${next}`);
    answer = await request(origin, token, command, {
      path,
      query: {},
      key: next,
    });
  }
  if (all && answer.status < 400) {
    const data = [...(answer.body.data ?? [])];
    while (answer.body.page?.has_more && answer.body.page.next_cursor) {
      answer = await request(origin, token, command, {
        path,
        query: { ...query, cursor: answer.body.page.next_cursor },
      });
      if (answer.status >= 400) break;
      data.push(...(answer.body.data ?? []));
    }
    if (answer.status < 400) answer = { status: answer.status, body: { data } };
  }
  process.stdout.write(JSON.stringify(answer.body, null, 2) + "\n");
  if (answer.status === 401) {
    throw new UsageError(
      "The credential was refused (401): sign in again or check SVC_MANAGEMENT_TOKEN",
    );
  }
  if (answer.status >= 400) {
    const error = answer.body?.error ?? {};
    throw new Refused(
      `Refused ${answer.status} ${error.code ?? ""}: ${error.message ?? ""}`,
    );
  }
}

// ---- Import and export helpers ----

/** True when --follow stops: the job needs someone, or has no step left. */
function jobStopped(job) {
  return job.kind === "export"
    ? job.state !== "building"
    : ["blocked", "completed", "failed", "canceled"].includes(job.state);
}
const ARCHIVE_PART_BYTES = 5 * 1024 * 1024;

function sha256Of(bytes) {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Sends a whole archive in 5 MiB parts (each with its SHA-256), then completes it with the file's. */
async function uploadWholeArchive(origin, token, id, bytes, key) {
  const part = findCommand("upload-import-part");
  const complete = findCommand("complete-import-archive");
  const parts = Math.max(1, Math.ceil(bytes.length / ARCHIVE_PART_BYTES));
  for (let n = 1; n <= parts; n++) {
    const chunk = bytes.subarray(
      (n - 1) * ARCHIVE_PART_BYTES,
      n * ARCHIVE_PART_BYTES,
    );
    const answer = await request(origin, token, part, {
      path: `/imports/${encodeURIComponent(id)}/archive/parts/${n}`,
      query: { sha256: sha256Of(chunk) },
      bytes: chunk,
      key: `${key}.${n}`,
    });
    if (answer.status >= 400) return answer;
    say(`Part ${n} of ${parts} sent (${chunk.length} bytes)`);
  }
  return await request(origin, token, complete, {
    path: `/imports/${encodeURIComponent(id)}/archive/complete`,
    query: {},
    body: { sha256: sha256Of(bytes), parts },
    key: `${key}.complete`,
  });
}

/** Reads every page of a byte-range command, checks the whole file's SHA-256, then writes it. */
async function readWholeFile(origin, token, command, path, query, out) {
  const chunks = [];
  let page = 1;
  let answer;
  let sha256 = null;
  while (page !== null) {
    answer = await request(origin, token, command, {
      path,
      query: { ...query, page: String(page) },
    });
    if (answer.status >= 400) return answer;
    chunks.push(Buffer.from(answer.body.content_base64, "base64"));
    sha256 = answer.body.sha256;
    page = answer.body.next_page;
  }
  const whole = Buffer.concat(chunks);
  if (sha256Of(whole) !== sha256) {
    throw new Refused(
      `The file read does not match its SHA-256 ${sha256}; nothing was written`,
    );
  }
  writeFileSync(out, whole);
  say(`Wrote ${whole.length} bytes to ${out} (SHA-256 ${sha256})`);
  return {
    status: answer.status,
    body: { file: out, bytes: whole.length, sha256 },
  };
}

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

// ---- Help ----

function overview() {
  const lines = [
    "svc-manage.mjs: the Stave Management API from a terminal.",
    "",
    "Usage: svc-manage.mjs <command> [options] --url <origin>",
    "",
    "Origin: --url or SVC_URL (https; http only on localhost, 127.0.0.1, [::1]).",
    "Credential: SVC_MANAGEMENT_TOKEN, else the saved login of the origin.",
    "Exit codes: 0 success, 1 the service refused, 2 usage, network or credential problem.",
    "",
    "Commands:",
  ];
  for (const [name, summary] of Object.entries(BUILT_IN)) {
    lines.push(`  ${name.padEnd(34)} ${summary}`);
  }
  for (const command of CONTRACT.commands) {
    lines.push(`  ${command.command.padEnd(34)} ${command.summary}`);
  }
  lines.push("", 'Run "svc-manage.mjs <command> --help" for its options.');
  return lines.join("\n");
}

function commandHelp(command) {
  const lines = [
    `svc-manage.mjs ${command.command}: ${command.summary}.`,
    "",
    `${command.method} ${CONTRACT.basePath}${command.path}   scope ${command.scope}`,
    "",
    "Options:",
  ];
  for (const option of command.options) {
    lines.push(
      `  ${`${option.flag} <${option.type}>`.padEnd(34)} ${
        option.required ? "required" : "optional"
      }${option.description ? `; ${option.description}` : ""}`,
    );
  }
  if (command.body) {
    lines.push(
      `  ${
        "--body <JSON | @file | ->".padEnd(34)
      } required; a JSON object with:`,
    );
    for (const field of command.body) {
      lines.push(
        `      ${field.name} (${field.type})${
          field.required ? " required" : ""
        }`,
      );
    }
  }
  if (command.key) {
    lines.push(
      `  ${
        "--key <key>".padEnd(34)
      } Idempotency-Key; made and printed on stderr when left out, give it again to retry safely`,
    );
  }
  if (command.pages) {
    lines.push(`  ${"--all".padEnd(34)} read every page and print one list`);
  }
  if (command.binary) {
    lines.push(
      `  ${"--file <path>".padEnd(34)} required; the bytes to send${
        command.command === "upload-import-part"
          ? " (without --part: the whole archive in 5 MiB parts, then completed with its SHA-256)"
          : ""
      }`,
    );
  }
  if (command.byteRange) {
    lines.push(
      `  ${
        "--out <path>".padEnd(34)
      } read every page, check the SHA-256, then write the file`,
    );
  }
  if (command.follow) {
    lines.push(
      `  ${
        "--follow".padEnd(34)
      } repeat the step (a new key each) until the job is blocked, ready or finished`,
    );
  }
  lines.push(`  ${"--url <origin>".padEnd(34)} the service (or SVC_URL)`);
  return lines.join("\n");
}

const BUILT_IN_HELP = {
  login: [
    "svc-manage.mjs login: sign in through the browser (OAuth 2.0 with PKCE S256).",
    "",
    "Options:",
    "  --scope <scopes>   ask for fewer scopes, space or comma separated",
    "  --no-open          print the address instead of opening a browser",
    "  --url <origin>     the service (or SVC_URL)",
    "",
    "Waits 5 minutes for the browser, then gives up (exit 2).",
  ].join("\n"),
  status:
    "svc-manage.mjs status: the origin, where the credential comes from, and its site.",
  logout:
    "svc-manage.mjs logout: revoke the saved login, then delete it; if revoking fails the file is kept.",
  mcp:
    "svc-manage.mjs mcp: a stdio MCP server; each JSON-RPC line is sent to <origin>/api/manage/mcp.",
};

// ---- Main ----

async function main(argv) {
  const { flags, rest } = parseArgs(argv);
  const name = rest[0];
  if (rest.length > 1) {
    throw new UsageError(`Unexpected argument "${rest[1]}"`);
  }
  if (name === undefined || name === "help") {
    process.stdout.write(overview() + "\n");
    return flags.get("help") === true || name === "help" ? EXIT_OK : EXIT_USAGE;
  }
  const command = findCommand(name);
  if (!command && !(name in BUILT_IN)) {
    throw new UsageError(`Unknown command "${name}" (see --help)`);
  }
  if (flags.get("help") === true) {
    process.stdout.write(
      (command ? commandHelp(command) : BUILT_IN_HELP[name]) + "\n",
    );
    return EXIT_OK;
  }
  const origin = originOf(flags);
  flags.delete("url");
  if (name === "login") await login(origin, flags);
  else if (name === "status") await status(origin);
  else if (name === "logout") await logout(origin);
  else if (name === "mcp") await mcp(origin);
  else await runCommand(command, flags, origin);
  return EXIT_OK;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    if (error instanceof UsageError) {
      say(`svc-manage: ${error.message}`);
      process.exit(EXIT_USAGE);
    }
    if (error instanceof Refused) {
      say(`svc-manage: ${error.message}`);
      process.exit(EXIT_REFUSED);
    }
    say(`svc-manage: unexpected failure: ${error?.message ?? error}`);
    process.exit(EXIT_USAGE);
  },
);
