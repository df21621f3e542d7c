// Calls the template build service over HTTP with its key (spec 3 part 4.8 rule 5).
import type { TemplateEnv } from "./settings.ts";

/** A check of the build report. */
export interface ReportCheck {
  name: string;
  status: "passed" | "failed" | "skipped";
  detail: string[];
}

/** The report the build service answers (services/templates/pipeline.ts). */
export interface BuildReport {
  site_id: string;
  candidate_digest: string;
  build_id: string;
  contract: number;
  sandbox_image: string;
  passed: boolean;
  checks: ReportCheck[];
  compiled_digest: string | null;
}

/** What a build answered, or why it could not be asked. */
export type BuildAnswer =
  | { ok: true; report: BuildReport; compiled: Record<string, string> | null }
  | { ok: false; detail: string };

/** Asks the build service to check and build a candidate. */
export async function requestBuild(
  env: TemplateEnv,
  body: {
    site_id: string;
    candidate_digest: string;
    contract: number;
    sandbox_image: string;
    manifest: unknown;
    source: Record<string, string>;
  },
  fetchFn: typeof fetch = fetch,
): Promise<BuildAnswer> {
  let response: Response;
  try {
    response = await fetchFn(`${env.TEMPLATE_BUILD_SERVICE_URL}/build`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${env.TEMPLATE_BUILD_SERVICE_KEY}`,
        "content-type": "application/json",
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(300_000),
    });
  } catch (e) {
    return {
      ok: false,
      detail: `The build service did not answer: ${
        e instanceof Error ? e.name : "error"
      }`,
    };
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    return {
      ok: false,
      detail: `The build service answered ${response.status}`,
    };
  }
  const answer = await response.json() as {
    report: BuildReport;
    compiled: Record<string, string> | null;
  };
  return { ok: true, report: answer.report, compiled: answer.compiled };
}
