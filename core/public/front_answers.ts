// Kept public answers served before routing. Once a request was answered from kept answers at a
// generation of announced commits (core/db/change_feed.ts), the same
// request (method GET or HEAD, Host, Authorization, Origin and URL as sent) is answered here,
// ahead of the router and the /v1 middleware, while the generation has not moved: with the very
// headers and body the full path built for it, the same 304 on a matching If-None-Match, and the
// kept answer's reuse window, memory budget and counts. What the full path would check again
// is checked here too: the answer is still the one kept, and a site API token has not expired
// (any other change to a token, a site or its models is a commit, which moves the generation).
// The request log, telemetry and the URL text check run before this step.
import type { Context, MiddlewareHandler } from "hono";
import { changeFeedOf, type Db } from "../db/database.ts";
import type { AppEnv } from "../web/env.ts";
import { type SerializedAnswer, serializedJson } from "./answer.ts";
import { keptAnswersOf } from "./kept_shelf.ts";

interface FrontEntry {
  /** The request's Host, Authorization and Origin ("" when absent). */
  host: string;
  authorization: string;
  origin: string;
  /** The generation state (`g<n>`) the answer is kept under. */
  state: string;
  /** The kept answers' key of the answer. */
  keptKey: string;
  answer: SerializedAnswer;
  /** Every header of the answer, as the full path built them for this request. */
  headers: [string, string][];
  /** When the request's site API token expires (ms since the epoch); null without one. */
  tokenExpiresAt: number | null;
}

/**
 * Requests answered before routing, per database handle, by path and query: one generation's at a
 * time. A request whose path was never answered here is passed on without reading a header.
 */
const fronts = new WeakMap<Db, Map<string, FrontEntry[]>>();
/** How many requests were answered before routing, per database handle. */
const served = new WeakMap<Db, number>();
/** Beyond this many requests per handle the memory starts over (many origins, tokens, URLs). */
const FRONT_MAX = 10_000;

/** How many requests `db`'s service answered before routing. */
export function frontServed(db: Db): number {
  return served.get(db) ?? 0;
}

/** The request's path and query, as sent. */
export function pathOf(c: Context<AppEnv>): string {
  const url = c.req.url;
  const path = url.indexOf("/", url.indexOf("//") + 2);
  return path < 0 ? "/" : url.slice(path);
}

/** Whether `entry` was remembered for a request with `c`'s Host, Authorization and Origin. */
function sameSender(entry: FrontEntry, c: Context<AppEnv>): boolean {
  return entry.host === (c.req.header("host") ?? "") &&
    entry.authorization === (c.req.header("authorization") ?? "") &&
    entry.origin === (c.req.header("origin") ?? "");
}

/**
 * Remembers how `c` was answered from kept answers under `state` (a generation), so the same
 * request is answered before routing while that answer stays kept.
 */
export function rememberFront(
  c: Context<AppEnv>,
  kept: Omit<FrontEntry, "host" | "authorization" | "origin">,
): void {
  const db = c.get("services").db;
  let entries = fronts.get(db);
  if (!entries) fronts.set(db, entries = new Map());
  const first = entries.values().next().value?.[0];
  if (
    (first !== undefined && first.state !== kept.state) ||
    entries.size >= FRONT_MAX
  ) entries.clear();
  const entry: FrontEntry = {
    ...kept,
    host: c.req.header("host") ?? "",
    authorization: c.req.header("authorization") ?? "",
    origin: c.req.header("origin") ?? "",
  };
  const path = pathOf(c);
  const others = (entries.get(path) ?? []).filter((e) => !sameSender(e, c));
  entries.set(path, [...others, entry]);
}

/** Answers a public GET or HEAD before routing when the same request was answered as kept. */
export const frontAnswers: MiddlewareHandler<AppEnv> =
  async function frontAnswers(c, next) {
    const method = c.req.method;
    if (method === "GET" || method === "HEAD") {
      const answer = frontAnswer(c);
      if (answer) return answer;
    }
    await next();
  };

function frontAnswer(c: Context<AppEnv>): Response | null {
  const { db, config, clock, reads } = c.get("services");
  const entries = fronts.get(db);
  // Reads sent to a replica keep answers by snapshot, which only a context statement reads.
  if (!entries || reads || config.publicAnswerCacheBytes <= 0) return null;
  const entry = entries.get(pathOf(c))?.find((e) => sameSender(e, c));
  if (!entry) return null;
  const generation = changeFeedOf(db)?.generation() ?? null;
  if (generation === null || entry.state !== `g${generation}`) return null;
  const now = clock.now().getTime();
  if (entry.tokenExpiresAt !== null && entry.tokenExpiresAt <= now) {
    return null;
  }
  const shelf = keptAnswersOf(db, config.publicAnswerCacheBytes);
  if (!shelf.serveAgain(entry.state, entry.keptKey, entry.answer, now)) {
    return null;
  }
  served.set(db, frontServed(db) + 1);
  return serializedJson(c, entry.answer, "public", entry.headers);
}
