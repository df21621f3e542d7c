// The peer harness's Directus 12.4, for benches that compare a scenario with it in the same run:
// `BENCH_DIRECTUS_URL` names it, `BENCH_DIRECTUS_EMAIL` and `BENCH_DIRECTUS_PASSWORD` its admin
// (the harness's local defaults when unset).

/** The Directus to compare with in this run, or null when `BENCH_DIRECTUS_URL` is unset. */
export function directusUrl(): string | null {
  return Deno.env.get("BENCH_DIRECTUS_URL") ?? null;
}

/** An access token of the harness's Directus admin. */
export async function directusToken(base: string): Promise<string> {
  const login = await fetch(`${base}/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      email: Deno.env.get("BENCH_DIRECTUS_EMAIL") ?? "admin@example.com",
      password: Deno.env.get("BENCH_DIRECTUS_PASSWORD") ?? "bench-admin-pw",
    }),
  });
  if (!login.ok) throw new Error(`Directus login answered ${login.status}`);
  return (await login.json()).data.access_token;
}
