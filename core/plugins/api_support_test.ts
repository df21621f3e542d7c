// outcomeOfError(): what the plugin API answers for a thrown failure, in the outcome envelope.
import { deepEqual, equal } from "node:assert/strict";
import { outcomeOfError } from "./api_support.ts";

Deno.test("outcomeOfError(): a lost database connection is temporary_failure (503, retry) with Retry-After, a plain failure the same without it (PAPI-037)", async () => {
  const logs: { msg: string }[] = [];
  const lost = outcomeOfError(
    Object.assign(
      new Error("terminating connection due to administrator command"),
      { code: "57P01" },
    ),
    (entry) => logs.push(entry),
  );
  equal(lost.status, 503);
  equal(lost.headers.get("retry-after"), "2");
  const body = await lost.json();
  equal(body.outcome.code, "temporary_failure");
  equal(body.outcome.retry, true);

  const failed = outcomeOfError(new Error("bug"), (entry) => logs.push(entry));
  equal(failed.status, 503);
  equal(failed.headers.get("retry-after"), null);
  equal((await failed.json()).outcome.code, "temporary_failure");
  deepEqual(logs.map((l) => l.msg), [
    "plugin api database unavailable",
    "plugin api failure",
  ]);
});
