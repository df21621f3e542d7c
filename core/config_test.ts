import { deepEqual, equal, match, ok, throws } from "node:assert/strict";
import { ConfigError, loadConfig } from "./config.ts";

/** Each of `values` for `setting` stops loading with a ConfigError naming the setting. */
function refusesEach(setting: string, values: string[]): void {
  for (const bad of values) {
    throws(
      () => loadConfig({ [setting]: bad }),
      (e: Error) =>
        e instanceof ConfigError &&
        new RegExp(`setting ${setting}`).test(e.message),
      `${setting}=${bad}`,
    );
  }
}

Deno.test("loadConfig() answers the embedded defaults for an empty environment", () => {
  const { rendererForwardingKey, ...config } = loadConfig({});
  // Made up at each start for the renderer beside the demo (tested below).
  match(rendererForwardingKey ?? "", /^[A-Za-z0-9_-]{43}$/);
  deepEqual(config, {
    port: 8000,
    host: "127.0.0.1",
    publicUrl: "http://localhost:8000",
    dataDir: "./data",
    databaseUrl: undefined,
    databasePoolMax: 10,
    databasePipelineConnections: 4,
    databaseReadUrls: [],
    databaseReadMaxLagMs: 2_000,
    kvPath: "./data/kv.sqlite3",
    deployment: null,
    demoSite: true,
    demoDomain: "localhost",
    logRequests: true,
    secureCookies: false,
    publicAnswerCacheBytes: 32 * 1024 * 1024,
    memoryTrimSeconds: 10,
    // The embedded demo is a development setup: the scheduling plugin runs beside it.
    environment: "development",
    pluginDevOrigins: [],
    pluginCatalogues: [],
    schedulerCompanion: { port: 8001 },
    // And the site renderer, which serves the demo site (issue 41).
    rendererCompanion: { port: 8002 },
    siteRenderers: { localhost: "http://localhost:8002" },
    mediaS3: null,
    mediaRequestBodyLimitBytes: 100_000_000,
    mediaImageLibrary: "auto",
    templateSettings: {},
  });
});

Deno.test("SITE_RENDERER_URLS names where each site's pages are served; the renderer beside the demo serves the demo", () => {
  deepEqual(
    loadConfig({
      SITE_RENDERER_URLS:
        "example.com=https://www.example.com, b.test=http://localhost:9002/",
      DEMO_SITE: "false",
    }).siteRenderers,
    {
      "example.com": "https://www.example.com",
      "b.test": "http://localhost:9002",
    },
  );
  equal(loadConfig({ RENDERER_COMPANION: "false" }).rendererCompanion, null);
  deepEqual(loadConfig({ RENDERER_COMPANION: "false" }).siteRenderers, {});
  deepEqual(loadConfig({ PORT: "9000" }).rendererCompanion, { port: 9002 });
  deepEqual(loadConfig({ PORT: "0" }).siteRenderers, {});
  throws(
    () =>
      loadConfig({
        SITE_RENDERER_URLS: "example.com=https://www.example.com/path",
      }),
    /setting SITE_RENDERER_URLS: expected comma-separated pairs/,
  );
});

Deno.test("ENVIRONMENT defaults to production with a real database or without the demo, and the companion follows", () => {
  const withDb = loadConfig({ DATABASE_URL: "postgres://u:p@db:5432/stave" });
  equal(withDb.environment, "production");
  equal(withDb.schedulerCompanion, null);
  const noDemo = loadConfig({ DEMO_SITE: "false" });
  equal(noDemo.environment, "production");
  equal(noDemo.schedulerCompanion, null);
  equal(loadConfig({ ENVIRONMENT: "production" }).schedulerCompanion, null);
  equal(loadConfig({ SCHEDULER_COMPANION: "false" }).schedulerCompanion, null);
  deepEqual(loadConfig({ PORT: "9000" }).schedulerCompanion, { port: 9001 });
  deepEqual(loadConfig({ SCHEDULER_PORT: "7000" }).schedulerCompanion, {
    port: 7000,
  });
});

Deno.test("loadConfig() reads every documented setting", () => {
  const config = loadConfig({
    PORT: "9000",
    HOST: "0.0.0.0",
    PUBLIC_URL: "https://cms.example.com/",
    DATA_DIR: "/var/stave",
    DATABASE_URL: "postgres://u:p@db:5432/stave",
    KV_PATH: "/var/kv/stave.sqlite3",
    DEMO_SITE: "false",
    DEMO_DOMAIN: "demo.test",
    LOG_REQUESTS: "0",
  });
  equal(config.port, 9000);
  equal(config.publicUrl, "https://cms.example.com");
  equal(config.secureCookies, true);
  equal(config.databaseUrl, "postgres://u:p@db:5432/stave");
  equal(config.kvPath, "/var/kv/stave.sqlite3");
  equal(config.demoSite, false);
  equal(config.logRequests, false);
});

Deno.test("loadConfig() accepts port 65535 and refuses 65536, naming the setting", () => {
  equal(loadConfig({ PORT: "65535" }).port, 65535);
  throws(
    () => loadConfig({ PORT: "65536" }),
    (e: Error) => e instanceof ConfigError && /setting PORT/.test(e.message),
  );
});

Deno.test("loadConfig() takes PUBLIC_ANSWER_CACHE_MB from 0 (keep none) to 4096 and refuses 4097", () => {
  equal(loadConfig({ PUBLIC_ANSWER_CACHE_MB: "0" }).publicAnswerCacheBytes, 0);
  equal(
    loadConfig({ PUBLIC_ANSWER_CACHE_MB: "4096" }).publicAnswerCacheBytes,
    4096 * 1024 * 1024,
  );
  refusesEach("PUBLIC_ANSWER_CACHE_MB", ["4097", "-1", "1.5", "lots"]);
});

Deno.test("loadConfig() takes MEMORY_TRIM_SECONDS from 0 (never) to 3600 and refuses 3601", () => {
  equal(loadConfig({ MEMORY_TRIM_SECONDS: "0" }).memoryTrimSeconds, 0);
  equal(loadConfig({ MEMORY_TRIM_SECONDS: "3600" }).memoryTrimSeconds, 3600);
  refusesEach("MEMORY_TRIM_SECONDS", ["3601", "-1", "0.5", "often"]);
});

Deno.test("loadConfig() takes MEDIA_REQUEST_BODY_LIMIT_BYTES from 1 to 5 GB and refuses anything else at start, naming the setting (MED-013)", () => {
  equal(
    loadConfig({ MEDIA_REQUEST_BODY_LIMIT_BYTES: "1" })
      .mediaRequestBodyLimitBytes,
    1,
  );
  equal(
    loadConfig({ MEDIA_REQUEST_BODY_LIMIT_BYTES: "5000000000" })
      .mediaRequestBodyLimitBytes,
    5_000_000_000,
  );
  refusesEach("MEDIA_REQUEST_BODY_LIMIT_BYTES", [
    "5000000001",
    "0",
    "-1",
    "1.5",
    "lots",
  ]);
});

Deno.test("loadConfig() names a bad DATABASE_URL without printing its secret", () => {
  throws(
    () => loadConfig({ DATABASE_URL: "mysql://admin:hunter2-secret@db/stave" }),
    (e: Error) => {
      match(e.message, /setting DATABASE_URL/);
      equal(e.message.includes("hunter2"), false);
      return true;
    },
  );
});

Deno.test("loadConfig() refuses every bad value at once", () => {
  throws(
    () =>
      loadConfig({ PORT: "x", DEMO_SITE: "maybe", DEMO_DOMAIN: "Bad_Host:80" }),
    (e: Error) => {
      match(e.message, /setting PORT/);
      match(e.message, /setting DEMO_SITE/);
      match(e.message, /setting DEMO_DOMAIN/);
      return true;
    },
  );
});

Deno.test("loadConfig() defaults the public URL to localhost on the configured port", () => {
  equal(loadConfig({ PORT: "9000" }).publicUrl, "http://localhost:9000");
  equal(
    loadConfig({ PORT: "9000", PUBLIC_URL: "https://cms.example.com" })
      .publicUrl,
    "https://cms.example.com",
  );
});

Deno.test("loadConfig() refuses a HOST that is no address (999.1.1.1) and accepts IPv4, IPv6 and names", () => {
  for (
    const good of [
      "127.0.0.1",
      "0.0.0.0",
      "::",
      "::1",
      "localhost",
      "cms-1.internal",
    ]
  ) {
    equal(loadConfig({ HOST: good }).host, good);
  }
  for (
    const bad of ["999.1.1.1", "1.2.3", "256.0.0.1", "bad host", "-x", "a..b"]
  ) {
    throws(
      () => loadConfig({ HOST: bad }),
      (e: Error) =>
        e instanceof ConfigError && /setting HOST/.test(e.message) &&
        !e.message.includes(bad),
      bad,
    );
  }
});

Deno.test("loadConfig() refuses a PUBLIC_URL with a path, query, fragment or user", () => {
  equal(
    loadConfig({ PUBLIC_URL: "https://cms.example.com:8443/" }).publicUrl,
    "https://cms.example.com:8443",
  );
  for (
    const bad of [
      "https://cms.example.com/cms",
      "https://cms.example.com/?q=1",
      "https://cms.example.com?q=1",
      "https://cms.example.com#top",
      "https://u:p@cms.example.com",
    ]
  ) {
    throws(
      () => loadConfig({ PUBLIC_URL: bad }),
      (e: Error) =>
        e instanceof ConfigError && /setting PUBLIC_URL/.test(e.message),
      bad,
    );
  }
});

Deno.test("loadConfig() honours PLUGIN_DEV_ORIGINS only with ENVIRONMENT=development (OUT-018)", () => {
  const origins = "http://localhost:8787, http://127.0.0.1:9000";
  deepEqual(
    loadConfig({ ENVIRONMENT: "development", PLUGIN_DEV_ORIGINS: origins })
      .pluginDevOrigins,
    ["http://localhost:8787", "http://127.0.0.1:9000"],
  );
  const production = loadConfig({
    DATABASE_URL: "postgres://u:p@db:5432/stave",
    PLUGIN_DEV_ORIGINS: origins,
  });
  equal(production.environment, "production");
  deepEqual(production.pluginDevOrigins, []);
  deepEqual(
    loadConfig({ ENVIRONMENT: "production", PLUGIN_DEV_ORIGINS: origins })
      .pluginDevOrigins,
    [],
  );
});

Deno.test("loadConfig() refuses a PLUGIN_DEV_ORIGINS entry that is not an exact origin, naming the setting", () => {
  for (
    const bad of [
      "http://*.example.com",
      "*",
      "http://localhost:8787/",
      "http://localhost:8787/svc",
      "localhost:8787",
      "ftp://localhost",
      "http://localhost:8787,nonsense",
    ]
  ) {
    throws(
      () => loadConfig({ ENVIRONMENT: "development", PLUGIN_DEV_ORIGINS: bad }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /setting PLUGIN_DEV_ORIGINS/.test(error.message) &&
        !error.message.includes(bad),
      bad,
    );
  }
  throws(() => loadConfig({ ENVIRONMENT: "staging" }), /setting ENVIRONMENT/);
});
Deno.test("loadConfig() takes at most 4 PLUGIN_CATALOGUES and refuses the 5th, naming the setting (OUT-024)", () => {
  const urls = [1, 2, 3, 4, 5].map((n) =>
    `https://plugins${n}.example.com/catalogue.json`
  );
  deepEqual(
    loadConfig({ PLUGIN_CATALOGUES: urls.slice(0, 4).join(", ") })
      .pluginCatalogues,
    urls.slice(0, 4),
  );
  throws(
    () => loadConfig({ PLUGIN_CATALOGUES: urls.join(",") }),
    (error: unknown) =>
      error instanceof ConfigError &&
      /setting PLUGIN_CATALOGUES: expected at most 4 catalogue URLs, found 5/
        .test(error.message),
  );
  deepEqual(loadConfig({}).pluginCatalogues, []);
});

Deno.test("loadConfig() refuses a PLUGIN_CATALOGUES URL that is not https (unless a development origin), has credentials or a fragment, or repeats", () => {
  for (
    const bad of [
      "plugins.example.com/catalogue.json",
      "ftp://plugins.example.com/c.json",
      "https://user:secret@plugins.example.com/c.json",
      "https://plugins.example.com/c.json#top",
      "https://a.example.com/c.json,https://a.example.com/c.json",
      "http://plugins.example.com/c.json",
    ]
  ) {
    throws(
      () => loadConfig({ PLUGIN_CATALOGUES: bad }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /setting PLUGIN_CATALOGUES/.test(error.message) &&
        !error.message.includes("secret"),
      bad,
    );
  }
  const local = "http://127.0.0.1:8787/catalogue.json";
  throws(
    () => loadConfig({ ENVIRONMENT: "production", PLUGIN_CATALOGUES: local }),
    /setting PLUGIN_CATALOGUES/,
  );
  deepEqual(
    loadConfig({
      ENVIRONMENT: "development",
      PLUGIN_DEV_ORIGINS: "http://127.0.0.1:8787",
      PLUGIN_CATALOGUES: local,
    }).pluginCatalogues,
    [local],
  );
});

Deno.test("loadConfig() reads the MEDIA_S3_* settings as one value, region and prefix defaulted", () => {
  const config = loadConfig({
    MEDIA_S3_ENDPOINT: "http://127.0.0.1:9000/",
    MEDIA_S3_BUCKET: "stave-media",
    MEDIA_S3_ACCESS_KEY_ID: "AKIDEXAMPLE",
    MEDIA_S3_SECRET_ACCESS_KEY: "not-a-real-secret-value",
  });
  deepEqual(config.mediaS3, {
    endpoint: "http://127.0.0.1:9000",
    bucket: "stave-media",
    region: "us-east-1",
    accessKeyId: "AKIDEXAMPLE",
    secretAccessKey: "not-a-real-secret-value",
    prefix: "",
  });
});

Deno.test("loadConfig() refuses a partial MEDIA_S3_* set naming what is missing, never a value", () => {
  throws(
    () =>
      loadConfig({
        MEDIA_S3_ENDPOINT: "http://127.0.0.1:9000",
        MEDIA_S3_SECRET_ACCESS_KEY: "very-secret-value-here",
      }),
    (error: Error) => {
      equal(error instanceof ConfigError, true);
      match(error.message, /MEDIA_S3_BUCKET/);
      match(error.message, /MEDIA_S3_ACCESS_KEY_ID/);
      equal(error.message.includes("very-secret-value-here"), false);
      return true;
    },
  );
  throws(
    () => loadConfig({ MEDIA_S3_BUCKET: "Bad_Bucket" }),
    /MEDIA_S3_BUCKET/,
  );
  throws(
    () => loadConfig({ MEDIA_S3_ENDPOINT: "ftp://x" }),
    /MEDIA_S3_ENDPOINT/,
  );
});

Deno.test("loadConfig() takes DATABASE_POOL_MAX from 1 to 100 (default 10) and refuses 0 and 101", () => {
  equal(loadConfig({}).databasePoolMax, 10);
  equal(loadConfig({ DATABASE_POOL_MAX: "1" }).databasePoolMax, 1);
  equal(loadConfig({ DATABASE_POOL_MAX: "100" }).databasePoolMax, 100);
  refusesEach("DATABASE_POOL_MAX", ["0", "101", "2.5", "many"]);
});

Deno.test("loadConfig() takes DATABASE_PIPELINE_CONNECTIONS from 0 to 32, by default a third of the pool up to 4, and refuses -1 and 33", () => {
  equal(loadConfig({}).databasePipelineConnections, 4);
  equal(
    loadConfig({ DATABASE_POOL_MAX: "2" }).databasePipelineConnections,
    1,
  );
  equal(
    loadConfig({ DATABASE_POOL_MAX: "100" }).databasePipelineConnections,
    4,
  );
  equal(
    loadConfig({ DATABASE_PIPELINE_CONNECTIONS: "0" })
      .databasePipelineConnections,
    0,
  );
  equal(
    loadConfig({ DATABASE_PIPELINE_CONNECTIONS: "32" })
      .databasePipelineConnections,
    32,
  );
  refusesEach("DATABASE_PIPELINE_CONNECTIONS", ["-1", "33", "1.5", "some"]);
});

Deno.test("RENDERER_FORWARDING_KEY: 32 characters or more; the renderer beside the demo gets a fresh one, production none unless set", () => {
  equal(
    loadConfig({ RENDERER_FORWARDING_KEY: "k".repeat(32) })
      .rendererForwardingKey,
    "k".repeat(32),
  );
  throws(
    () => loadConfig({ RENDERER_FORWARDING_KEY: "k".repeat(31) }),
    /setting RENDERER_FORWARDING_KEY: expected a secret of 32 or more characters/,
  );
  const first = loadConfig({}).rendererForwardingKey;
  match(first ?? "", /^[A-Za-z0-9_-]{43}$/);
  const second = loadConfig({}).rendererForwardingKey;
  equal(first === second, false);
  equal(
    loadConfig({ RENDERER_COMPANION: "false" }).rendererForwardingKey,
    null,
  );
});

const S3_SETTINGS = {
  MEDIA_S3_ENDPOINT: "https://s3.eu-central-1.amazonaws.com",
  MEDIA_S3_BUCKET: "stave-media",
  MEDIA_S3_ACCESS_KEY_ID: "AKIAEXAMPLE",
  MEDIA_S3_SECRET_ACCESS_KEY: "do-not-print-me",
};

Deno.test("On Deno Deploy (DENO_DEPLOYMENT_ID) KV is the deployment's own, the demo and companions are off, and production is the default (issue 47 item 1)", () => {
  const config = loadConfig({
    DENO_DEPLOYMENT_ID: "abc123",
    DATABASE_URL: "postgres://stave:secret@db.example.com/stave",
    ...S3_SETTINGS,
  });
  equal(config.deployment, "abc123");
  equal(config.kvPath, null, "Deno.openKv() without a path");
  equal(config.demoSite, false);
  equal(config.environment, "production");
  equal(config.schedulerCompanion, null);
  equal(config.rendererCompanion, null);
  equal(config.mediaS3?.bucket, "stave-media");
  // A KV server's URL still wins when given.
  equal(
    loadConfig({
      DENO_DEPLOYMENT_ID: "abc123",
      DATABASE_URL: "postgres://db.example.com/stave",
      KV_PATH: "https://kv.example.com",
      ...S3_SETTINGS,
    }).kvPath,
    "https://kv.example.com",
  );
});

Deno.test("On Deno Deploy a missing DATABASE_URL or MEDIA_S3_* and DEMO_SITE=true are refused at start, every problem at once, no secret printed (issue 47 item 1)", () => {
  throws(
    () =>
      loadConfig({
        DENO_DEPLOYMENT_ID: "abc123",
        DEMO_SITE: "true",
      }),
    (error: Error) => {
      ok(error instanceof ConfigError);
      match(error.message, /setting DATABASE_URL: required on Deno Deploy/);
      match(
        error.message,
        /setting MEDIA_S3_ENDPOINT: required on Deno Deploy/,
      );
      match(error.message, /setting DEMO_SITE: must be false on Deno Deploy/);
      return true;
    },
  );
  throws(
    () =>
      loadConfig({
        DENO_DEPLOYMENT_ID: "abc123",
        DATABASE_URL: "postgres://stave:secret@db.example.com/stave",
      }),
    (error: Error) => {
      match(error.message, /MEDIA_S3_ENDPOINT/);
      ok(!error.message.includes("secret"));
      return true;
    },
  );
});

Deno.test("DATABASE_READ_URL takes up to 8 comma-separated PostgreSQL URLs and refuses the 9th or a non-PostgreSQL URL, never printing one (issue 47 item 2)", () => {
  const url = (n: number) => `postgres://reader:pw${n}@replica-${n}:5432/stave`;
  deepEqual(
    loadConfig({
      DATABASE_URL: "postgres://db/stave",
      DATABASE_READ_URL: ` ${url(1)}, ${url(2)} `,
    }).databaseReadUrls,
    [url(1), url(2)],
  );
  const eight = Array.from({ length: 8 }, (_, i) => url(i)).join(",");
  equal(
    loadConfig({
      DATABASE_URL: "postgres://db/stave",
      DATABASE_READ_URL: eight,
    })
      .databaseReadUrls.length,
    8,
  );
  throws(
    () =>
      loadConfig({
        DATABASE_URL: "postgres://db/stave",
        DATABASE_READ_URL: `${eight},${url(9)}`,
      }),
    /setting DATABASE_READ_URL: expected at most 8 URLs, found 9/,
  );
  throws(
    () =>
      loadConfig({
        DATABASE_URL: "postgres://db/stave",
        DATABASE_READ_URL: "mysql://reader:pw@replica/stave",
      }),
    (error: Error) => {
      match(
        error.message,
        /setting DATABASE_READ_URL: expected comma-separated PostgreSQL URLs/,
      );
      ok(!error.message.includes("reader:pw"));
      return true;
    },
  );
  equal(
    loadConfig({ DATABASE_READ_MAX_LAG_MS: "600000" }).databaseReadMaxLagMs,
    600_000,
  );
  throws(
    () => loadConfig({ DATABASE_READ_MAX_LAG_MS: "600001" }),
    /setting DATABASE_READ_MAX_LAG_MS/,
  );
});
