// `deno task bench:media`: upload throughput of a 5 MiB image through the Management API (MiB/s and the
// service's memory over 100 uploads), public media delivery req/s beside Deno.serve serving the same
// bytes from a file, and image variants: first requests for a 1200 px WebP of a 12-megapixel JPEG at
// concurrency 8 (latency, peak memory) and repeat requests beside the original of the same bytes,
// and beside Directus's /assets transform of the same photo when BENCH_DIRECTUS_URL names one.
// Runs the service in this process on PGlite (or DATABASE_URL) in a temporary DATA_DIR.
import sharp from "sharp";
import { openServices } from "../core/boot.ts";
import { loadConfig } from "../core/config.ts";
import { encodePng } from "../core/media/png.ts";
import { createApp } from "../core/server.ts";
import { createInstallation } from "../core/sites/installation.ts";
import { directusToken, directusUrl } from "./directus.ts";
import { hasWrk, runLoad, type RunStats, runWrk } from "./load.ts";

const UPLOADS = Number(Deno.env.get("BENCH_MEDIA_UPLOADS") ?? 100);
const SECONDS = Number(Deno.env.get("BENCH_MEDIA_SECONDS") ?? 5);
const CONCURRENCY = 32;
const MiB = 1024 * 1024;

const dir = await Deno.makeTempDir({ prefix: "stave-bench-media-" });
const config = loadConfig({
  ...Deno.env.toObject(),
  DATA_DIR: dir,
  DEMO_SITE: "false",
  LOG_REQUESTS: "false",
  PORT: "0",
  MEDIA_S3_ENDPOINT: "",
});
const { services, close } = await openServices(config, { buildIslands: false });
const created = await createInstallation(services, {
  domain: "127.0.0.1",
  slug: "bench-media",
  name: "Bench media",
  locales: ["en"],
  adminEmail: "bench@example.com",
  credential: { name: "bench", scopes: ["content:read", "media:write"] },
});
if (!created.ok) throw new Error(created.message);
const secret = created.management_credential!.secret;
const app = createApp(services);
const server = Deno.serve(
  { port: 0, hostname: "127.0.0.1", onListen: () => {} },
  app.fetch,
);
const origin = `http://127.0.0.1:${server.addr.port}`;

// Noise does not compress: 1322 × 1322 RGB is just over 5 MiB as PNG.
const side = 1322;
let seed = 1;
const big = await encodePng(side, side, () => {
  // xorshift32: no pattern deflate could find.
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return [seed & 255, (seed >>> 8) & 255, (seed >>> 16) & 255];
});

async function upload(bytes: Uint8Array, name: string): Promise<string> {
  const form = new FormData();
  form.append("file", new File([bytes as Uint8Array<ArrayBuffer>], name));
  form.append("on_duplicate", "copy");
  const res = await fetch(`${origin}/api/manage/v1/media`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${secret}`,
      "idempotency-key": crypto.randomUUID(),
    },
    body: form,
  });
  const body = await res.json();
  if (res.status !== 201) throw new Error(`Upload answered ${res.status}`);
  return body.url;
}

const rss: number[] = [];
const started = performance.now();
for (let i = 0; i < UPLOADS; i++) {
  await upload(big, `noise-${i}.png`);
  if (i % 10 === 9) rss.push(Math.round(Deno.memoryUsage().rss / MiB));
}
const uploadSeconds = (performance.now() - started) / 1000;
const mibPerSecond = (UPLOADS * big.length / MiB) / uploadSeconds;

// Delivery: a small image through the service, and the same bytes from a file with Deno.serve.
const small = await Deno.readFile(
  new URL("../core/sites/demo_media/sunrise.png", import.meta.url),
);
const url = await upload(small, "sunrise.png");
const mediaPath = new URL(url).pathname;
const plainFile = `${dir}/plain.png`;
await Deno.writeFile(plainFile, small);
const plain = Deno.serve(
  { port: 0, hostname: "127.0.0.1", onListen: () => {} },
  async () =>
    new Response(await Deno.readFile(plainFile), {
      headers: { "content-type": "image/png" },
    }),
);
const plainOrigin = `http://127.0.0.1:${plain.addr.port}`;

async function measure(base: string, path: string): Promise<RunStats> {
  if (await hasWrk()) return await runWrk(base, [path], CONCURRENCY, SECONDS);
  const perWorker = Math.max(1, Math.round(200 * SECONDS / CONCURRENCY));
  return await runLoad(CONCURRENCY, perWorker, async () => {
    const res = await fetch(`${base}${path}`);
    await res.arrayBuffer();
    return res.ok;
  });
}
const service = await measure(origin, mediaPath);
const baseline = await measure(plainOrigin, "/plain.png");

// Variants. A 12-megapixel photo-like JPEG (smoothed noise), uploaded 8 times so that 8 first
// requests at once each make their own variant.
const VARIANT_CONCURRENCY = 8;
const photo = new Uint8Array(
  await sharp({
    create: {
      width: 4000,
      height: 3000,
      channels: 3,
      background: "#808080",
      noise: { type: "gaussian", mean: 128, sigma: 40 },
    },
  }).blur(1.5).jpeg({ quality: 85 }).toBuffer(),
);
const photos: string[] = [];
for (let i = 0; i < VARIANT_CONCURRENCY; i++) {
  photos.push(await upload(photo, `photo-${i}.jpg`));
}
const query = "?width=1200&format=webp";
let peak = Deno.memoryUsage().rss;
const before = peak;
const sampler = setInterval(() => {
  peak = Math.max(peak, Deno.memoryUsage().rss);
}, 20);
const first = await firstRequests(
  photos.map((u) => `${origin}${new URL(u).pathname}${query}`),
);
clearInterval(sampler);
const variantPath = `${new URL(photos[0]).pathname}${query}`;
const variantBytes = new Uint8Array(
  await (await fetch(`${origin}${variantPath}`)).arrayBuffer(),
);
// The same bytes as an original, to compare a stored variant with a stored original.
const sameBytes = new URL(await upload(variantBytes, "variant-copy.webp"))
  .pathname;
async function measureAt(base: string, path: string): Promise<RunStats> {
  if (await hasWrk()) {
    return await runWrk(base, [path], VARIANT_CONCURRENCY, SECONDS);
  }
  const perWorker = Math.max(
    1,
    Math.round(200 * SECONDS / VARIANT_CONCURRENCY),
  );
  return await runLoad(VARIANT_CONCURRENCY, perWorker, async () => {
    const res = await fetch(`${base}${path}`);
    await res.arrayBuffer();
    return res.ok;
  });
}
const repeat = await measureAt(origin, variantPath);
const original = await measureAt(origin, sameBytes);

/** Wall time of each of `urls` fetched all at once, sorted, and of the whole batch. */
async function firstRequests(urls: string[]) {
  const started = performance.now();
  const times = await Promise.all(urls.map(async (u) => {
    const t0 = performance.now();
    const res = await fetch(u);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${u} answered ${res.status}`);
    return performance.now() - t0;
  }));
  const wall = performance.now() - started;
  times.sort((a, b) => a - b);
  return {
    concurrency: urls.length,
    wall_ms: Math.round(wall),
    median_ms: Math.round(times[times.length >> 1]),
    slowest_ms: Math.round(times[times.length - 1]),
  };
}

/**
 * Directus 12.4's `/assets` transform of the same photo, side by side in this run, when the peer
 * harness's Directus is running: `BENCH_DIRECTUS_URL` with its admin's `BENCH_DIRECTUS_EMAIL`
 * and `BENCH_DIRECTUS_PASSWORD` (the harness's local defaults). The same 8 uploads, 8 first
 * requests at once for a 1200 px WebP, then repeat requests for one stored transform.
 */
async function directusVariants(base: string) {
  const token = await directusToken(base);
  const ids: string[] = [];
  for (let i = 0; i < VARIANT_CONCURRENCY; i++) {
    const form = new FormData();
    form.append(
      "file",
      new Blob([photo], { type: "image/jpeg" }),
      `photo-${i}.jpg`,
    );
    const res = await fetch(`${base}/files`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    if (!res.ok) throw new Error(`Directus upload answered ${res.status}`);
    ids.push((await res.json()).data.id);
  }
  // A peer's local bench token in the query string: wrk sends no other header per request.
  const asset = (id: string) =>
    `/assets/${id}${query}&access_token=${encodeURIComponent(token)}`;
  const first = await firstRequests(ids.map((id) => `${base}${asset(id)}`));
  return {
    first_requests: first,
    repeat_requests: await measureAt(base, asset(ids[0])),
  };
}
const directusBase = directusUrl();
const directus = directusBase ? await directusVariants(directusBase) : null;

console.log(JSON.stringify(
  {
    upload: {
      file_mib: Number((big.length / MiB).toFixed(2)),
      uploads: UPLOADS,
      seconds: Number(uploadSeconds.toFixed(2)),
      mib_per_second: Number(mibPerSecond.toFixed(1)),
      rss_mib_every_10_uploads: rss,
    },
    delivery: {
      bytes: small.length,
      concurrency: CONCURRENCY,
      service,
      deno_serve_file: baseline,
      ratio: Number((service.rps / baseline.rps).toFixed(2)),
    },
    variants: {
      source: { width: 4000, height: 3000, bytes: photo.length },
      variant: { query, bytes: variantBytes.length },
      first_requests: {
        ...first,
        rss_before_mib: Math.round(before / MiB),
        rss_peak_mib: Math.round(peak / MiB),
      },
      repeat_requests: repeat,
      same_bytes_as_original: original,
      ratio: Number((repeat.rps / original.rps).toFixed(2)),
    },
    ...(directus ? { directus_assets: directus } : {}),
  },
  null,
  2,
));

await plain.shutdown();
await server.shutdown();
await close();
await Deno.remove(dir, { recursive: true });
