// Password hashing with scrypt (a memory-hard KDF); the parameters travel inside the stored hash.
import { scrypt, timingSafeEqual } from "node:crypto";
import { base64url } from "./secrets.ts";

/** The parameters of one scrypt hash: CPU and memory cost, block size, parallelism. */
export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/** Cost of new hashes: OWASP's scrypt recommendation (N=2^17, r=8, p=1). */
export const DEFAULT_SCRYPT: ScryptCost = { N: 2 ** 17, r: 8, p: 1 };

// Test support lowers it (tests/support/db.ts): a suite run made some 400 new hashes per engine,
// each about 128 MiB and a third to two thirds of a second of CPU, a third of the PostgreSQL run.
// No setting, request or command of the service reaches it, and a stored hash carries its own
// cost, so verifying is the same either way.
let newHashCost: ScryptCost = DEFAULT_SCRYPT;

/** The cost of the hashes this process makes where the caller names none. */
export function costOfNewHashes(): ScryptCost {
  return newHashCost;
}

/** For test support only: the cost of the hashes this process makes from now on. */
export function setTestHashCost(cost: ScryptCost): void {
  newHashCost = cost;
}

/** The shortest password a person may choose. */
export const MIN_PASSWORD_LENGTH = 12;

/**
 * Hashes computed at once by this process. scrypt at the default cost takes about 128 MiB
 * and a core for a few hundred ms; unbounded, eight parallel sign-ins took 7 s of CPU and
 * starved every other request. Further hashes wait their turn in a bounded line.
 */
export const MAX_CONCURRENT_HASHES = 2;
/** Hashes that may wait for a turn; beyond it {@link PasswordHashBusyError} is thrown. */
export const MAX_WAITING_HASHES = 32;

/** Thrown when too many hashes are waiting: the caller answers "busy, retry" without hashing. */
export class PasswordHashBusyError extends Error {
  override name = "PasswordHashBusyError";
  constructor() {
    super("Cannot hash a password now: too many are waiting");
  }
}

// A per-process CPU guard, not a rule: it changes when an answer comes, never what it says
// (except "busy" under overload), so it does not break scale-out (ARCHITECTURE.md, Scale).
const gate = { active: 0, peak: 0, started: 0, waiting: [] as (() => void)[] };

/** How many hashes this process has started, and the most it ran at once (for tests). */
export function passwordHashStats(): { started: number; peak: number } {
  return { started: gate.started, peak: gate.peak };
}

async function withHashTurn<T>(work: () => Promise<T>): Promise<T> {
  if (gate.active >= MAX_CONCURRENT_HASHES) {
    if (gate.waiting.length >= MAX_WAITING_HASHES) {
      throw new PasswordHashBusyError();
    }
    await new Promise<void>((resolve) => gate.waiting.push(resolve));
  }
  gate.active++;
  gate.started++;
  gate.peak = Math.max(gate.peak, gate.active);
  try {
    return await work();
  } finally {
    gate.active--;
    gate.waiting.shift()?.();
  }
}

function derive(
  password: string,
  salt: Uint8Array,
  cost: ScryptCost,
): Promise<Uint8Array> {
  return withHashTurn(() => deriveNow(password, salt, cost));
}

function deriveNow(
  password: string,
  salt: Uint8Array,
  cost: ScryptCost,
): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFKC"), salt, 32, {
      ...cost,
      maxmem: 256 * cost.N * cost.r,
    }, (error, key) => {
      if (error) reject(error);
      else resolve(new Uint8Array(key));
    });
  });
}

/** Hashes a password as `scrypt$N$r$p$salt$key` with a fresh random salt. */
export async function hashPassword(
  password: string,
  cost: ScryptCost = newHashCost,
): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const key = await derive(password, salt, cost);
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${base64url(salt)}$${
    base64url(key)
  }`;
}

/** True when `password` matches `stored`; compares in constant time. */
export async function verifyPassword(
  password: string,
  stored: string,
): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = fromBase64url(parts[4]);
  const expected = fromBase64url(parts[5]);
  const actual = await derive(password, salt, { N, r, p });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

function fromBase64url(text: string): Uint8Array {
  const padded = text.replaceAll("-", "+").replaceAll("_", "/") +
    "===".slice((text.length + 3) % 4);
  return Uint8Array.from(atob(padded), (ch) => ch.charCodeAt(0));
}

/** A readable random password for bootstrap output: 24 base64url characters (144 bits). */
export function generatePassword(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(18)));
}

/** A password made by the service for a person, and its hash to store. */
export interface NewPassword {
  password: string;
  hash: string;
}

/** A fresh {@link generatePassword} with its {@link hashPassword} hash. */
export async function newPassword(): Promise<NewPassword> {
  const password = generatePassword();
  return { password, hash: await hashPassword(password) };
}
