// Checks a conditional GET route against RFC 9110's If-None-Match: weak comparison, lists, `*`.
import { equal } from "node:assert/strict";

/** Sends one GET with the given extra headers and answers the response. */
export type ConditionalGet = (
  headers: Record<string, string>,
) => Response | Promise<Response>;

/**
 * Asserts that `get` answers 304 to `If-None-Match` holding `etag` as sent, weakened
 * (`W/"…"`), inside a list (also after a tag holding a comma), and `*`; and 200 to tags that
 * differ, weak or strong. Every body is read so no stream is left open.
 */
export async function assertIfNoneMatch(
  get: ConditionalGet,
  etag: string,
  label = "",
): Promise<void> {
  const strong = etag.replace(/^W\//, "");
  const hits = [
    etag,
    `W/${strong}`,
    `"nope", W/${strong}`,
    `"a,b",${strong}`,
    `  ${strong}  ,"other"`,
    "*",
  ];
  for (const value of hits) {
    const res = await get({ "if-none-match": value });
    await res.body?.cancel();
    equal(res.status, 304, `${label} If-None-Match: ${value}`);
  }
  for (const value of ['"nope"', 'W/"nope"', `"x${strong.slice(1)}`]) {
    const res = await get({ "if-none-match": value });
    await res.body?.cancel();
    equal(res.status, 200, `${label} If-None-Match: ${value}`);
  }
}
