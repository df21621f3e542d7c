// This module is browser compatible.
// Closed shapes of the protocol messages: the activation hand-off, the invocation envelope, the transition command.
import { z } from "zod";

/** An installation token: `svp_` and 43 URL-safe characters (256 bits). */
export const installationTokenSchema = z.string().regex(
  /^svp_[A-Za-z0-9_-]{43}$/,
  "expected svp_ and 43 URL-safe characters",
);

/**
 * The hand-off the service POSTs to the pinned `activation_url` (spec 1 part 4.2):
 * the minted token with the plugin's one-time code, `kind` telling activation from rotation.
 */
export const activationHandoffSchema = z.strictObject({
  kind: z.enum(["activate", "rotate"]),
  code: z.string().min(1).max(512),
  token: installationTokenSchema,
  installation_id: z.string().min(1).max(100),
  site_id: z.string().min(1).max(100),
  /** The service's base URL; the plugin calls `{service_url}/api/plugin/v1`. */
  service_url: z.url({ protocol: /^https?$/ }).max(2048),
});

/** A parsed activation hand-off. */
export type ActivationHandoff = z.output<typeof activationHandoffSchema>;

/**
 * The invocation envelope (spec 1 part 2.5): exactly the installation id, the invocation
 * id, a one-time code and its expiry (epoch milliseconds). No content, no credential;
 * the plugin refuses an unknown key.
 */
export const invocationEnvelopeSchema = z.strictObject({
  installation_id: z.string().min(1).max(100),
  invocation_id: z.string().min(1).max(100),
  code: z.string().min(1).max(256),
  expires_at: z.number().int().min(0),
});

/** A parsed invocation envelope. */
export type InvocationEnvelope = z.output<typeof invocationEnvelopeSchema>;

const versionId = z.uuid().nullable();

/**
 * The transition command of spec 1 part 2.7 (with header `Idempotency-Key`): a publish
 * pins `expected_current_version_id`, an unpublish `expected_published_version_id`
 * (null pins "none"). The same rules as the plugin API's transition route.
 */
export const transitionCommandSchema = z.strictObject({
  kind: z.enum(["publish", "unpublish"]),
  expected_current_version_id: versionId.optional(),
  expected_published_version_id: versionId.optional(),
  expected_workflow_revision: z.number().int().min(0),
  delegation_id: z.string().min(1).max(64),
  locale: z.string().min(2).max(35).optional(),
}).superRefine((command, ctx) => {
  const pin = command.kind === "publish"
    ? "expected_current_version_id"
    : "expected_published_version_id";
  if (command[pin] === undefined) {
    ctx.addIssue({
      code: "custom",
      path: [pin],
      message: `A ${command.kind} pins ${pin}`,
    });
  }
});

/** A parsed transition command. */
export type TransitionCommand = z.output<typeof transitionCommandSchema>;
