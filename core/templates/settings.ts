// The dependency settings of template operations (spec 3 part 4.8 rules 5 and 8): which ones an
// operation needs, and when a set value still counts as unset.

/** Operations that need outside services. */
export type TemplateOperation =
  | "upload"
  | "generate"
  | "preview"
  | "accept"
  | "release";

/** The settings by name; unset or empty values are absent. */
export type TemplateEnv = Readonly<Record<string, string | undefined>>;

const NEEDS: Record<TemplateOperation, readonly string[]> = {
  upload: [
    "TEMPLATE_BUILD_SERVICE_URL",
    "TEMPLATE_BUILD_SERVICE_KEY",
    "TEMPLATE_SANDBOX_IMAGE",
    "TEMPLATE_ARTIFACTS",
  ],
  generate: [
    "TEMPLATE_BUILD_SERVICE_URL",
    "TEMPLATE_BUILD_SERVICE_KEY",
    "TEMPLATE_SANDBOX_IMAGE",
    "TEMPLATE_ARTIFACTS",
    "TEMPLATE_INFERENCE_URL",
    "TEMPLATE_GENERATION_MODEL",
  ],
  preview: [
    "TEMPLATE_PREVIEW_SERVICE_URL",
    "TEMPLATE_PREVIEW_SERVICE_KEY",
    "TEMPLATE_SANDBOX_IMAGE",
    "TEMPLATE_ARTIFACTS",
  ],
  accept: ["TEMPLATE_ARTIFACTS"],
  release: [
    "MANAGED_RENDER_DEPLOY_SERVICE_URL",
    "MANAGED_RENDER_DEPLOY_SERVICE_KEY",
    "MANAGED_RENDER_INSTALLATION_ID",
    "MANAGED_RENDER_HMAC_KEY",
  ],
};

/** Every setting a template operation may read. */
export const TEMPLATE_SETTING_NAMES: readonly string[] = [
  ...new Set(Object.values(NEEDS).flat()),
];

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** A bare origin: https anywhere, http only on loopback; no path, query, fragment or user. */
export function isServiceOrigin(value: string, httpsOnly = false): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  const bare = url.origin === value.replace(/\/$/, "") &&
    url.username === "" && url.password === "";
  if (!bare) return false;
  if (url.protocol === "https:") return true;
  return !httpsOnly && url.protocol === "http:" && LOOPBACK.has(url.hostname);
}

/** Whether one setting's value counts as set (rule 5: short keys, bad origins, unpinned images). */
export function settingUsable(
  name: string,
  value: string | undefined,
): boolean {
  if (value === undefined || value.trim() === "") return false;
  if (name.endsWith("_KEY")) return value.length >= 32;
  if (name === "MANAGED_RENDER_DEPLOY_SERVICE_URL") {
    return isServiceOrigin(value);
  }
  if (name.endsWith("_SERVICE_URL") || name === "TEMPLATE_INFERENCE_URL") {
    return isServiceOrigin(value);
  }
  if (name === "TEMPLATE_SANDBOX_IMAGE") {
    // Pinned by digest: a tag can move, a digest cannot.
    return /^[a-z0-9][a-z0-9._\/:-]*@sha256:[0-9a-f]{64}$/.test(value);
  }
  if (name === "MANAGED_RENDER_INSTALLATION_ID") {
    return /^[a-z0-9-]{3,63}$/.test(value);
  }
  if (name === "TEMPLATE_ARTIFACTS") {
    return value.startsWith("/") || value.startsWith("file:///");
  }
  return true;
}

/** The settings an operation needs that are unset or count as unset, in a stable order. */
export function missingSettings(
  env: TemplateEnv,
  operation: TemplateOperation,
): string[] {
  return NEEDS[operation].filter((name) => !settingUsable(name, env[name]));
}

/** The artifacts directory as a plain path. */
export function artifactsDir(env: TemplateEnv): string {
  const value = env.TEMPLATE_ARTIFACTS ?? "";
  return value.startsWith("file://") ? new URL(value).pathname : value;
}
