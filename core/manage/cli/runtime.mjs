// The first part of svc-manage.mjs (imports, arguments, origin); build.ts joins the parts and fills CONTRACT.
// deno-lint-ignore-file no-unused-vars -- the parts are joined into one file; each alone looks unused
import { Buffer } from "node:buffer";
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  createReadStream,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import { homedir } from "node:os";
import { basename, join } from "node:path";
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
