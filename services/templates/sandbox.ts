// Runs a candidate's compiled code in a Deno subprocess that may read its own directory and
// nothing else: no network, no environment, no writes, no subprocesses, no FFI, bounded in
// time and memory. What it guards against and what it does not: docs/templates.md, "Sandbox".

/** Limits of one sandbox run. */
export interface SandboxLimits {
  timeoutMs: number;
  memoryMb: number;
  /** The most stdout bytes read; more ends the run. */
  maxOutputBytes: number;
}

/** Default limits (docs/templates.md). */
export const SANDBOX_LIMITS: SandboxLimits = {
  timeoutMs: 20_000,
  memoryMb: 256,
  maxOutputBytes: 24 * 1024 * 1024,
};

/** What a run answered. */
export type SandboxOutcome =
  | { ok: true; stdout: string }
  | {
    ok: false;
    reason: "timeout" | "output_too_large" | "crashed";
    detail: string;
  };

/** Runs `<dir>/runner.js` with `input` on stdin. */
export async function runSandboxed(
  dir: string,
  input: string,
  limits: SandboxLimits = SANDBOX_LIMITS,
): Promise<SandboxOutcome> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--no-config",
      "--no-lock",
      "--no-remote",
      "--no-npm",
      `--allow-read=${dir}`,
      "--deny-net",
      "--deny-env",
      "--deny-write",
      "--deny-run",
      "--deny-ffi",
      "--deny-sys",
      `--v8-flags=--max-old-space-size=${limits.memoryMb}`,
      `${dir}/runner.js`,
    ],
    cwd: dir,
    // Nothing of the service's environment (keys, database address) reaches the candidate.
    clearEnv: true,
    env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }, limits.timeoutMs);
  const writer = child.stdin.getWriter();
  writer.write(new TextEncoder().encode(input)).catch(() => {});
  writer.close().catch(() => {});
  const chunks: Uint8Array[] = [];
  let size = 0;
  let tooLarge = false;
  const stderr = new Response(child.stderr).text();
  for await (const chunk of child.stdout) {
    size += chunk.length;
    if (size > limits.maxOutputBytes) {
      tooLarge = true;
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
      break;
    }
    chunks.push(chunk);
  }
  const status = await child.status;
  clearTimeout(timer);
  const errText = (await stderr.catch(() => "")).slice(-2000);
  if (timedOut) {
    return {
      ok: false,
      reason: "timeout",
      detail: `Stopped after ${limits.timeoutMs} ms`,
    };
  }
  if (tooLarge) {
    return {
      ok: false,
      reason: "output_too_large",
      detail: "Output too large",
    };
  }
  if (!status.success) {
    return {
      ok: false,
      reason: "crashed",
      detail: errText || `Exit code ${status.code}`,
    };
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return { ok: true, stdout: new TextDecoder().decode(all) };
}
