// This module is browser compatible.
// Closed parsers of what the service sends a plugin: the activation hand-off and the invocation envelope.
import { z } from "zod";

/** The activation or rotation hand-off POSTed to the plugin's `activation_url`. */
export const activationHandoffSchema = z.strictObject({
  kind: z.enum(["activate", "rotate"]),
  code: z.string().min(1).max(512),
  token: z.string().regex(/^svp_[A-Za-z0-9_-]{43}$/),
  installation_id: z.string().min(1).max(100),
  site_id: z.string().min(1).max(100),
  service_url: z.string().min(1).max(2048),
});

/** A parsed hand-off. */
export type ActivationHandoff = z.output<typeof activationHandoffSchema>;

/** The invocation envelope: exactly four keys; an unknown key makes the plugin refuse. */
export const invocationEnvelopeSchema = z.strictObject({
  installation_id: z.string().min(1).max(100),
  invocation_id: z.string().min(1).max(100),
  code: z.string().min(1).max(256),
  expires_at: z.number().int().min(0),
});

/** A parsed invocation envelope. */
export type InvocationEnvelope = z.output<typeof invocationEnvelopeSchema>;

/** Parses a hand-off body; null when it is not exactly the closed shape. */
export function parseActivationHandoff(
  json: unknown,
): ActivationHandoff | null {
  const parsed = activationHandoffSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/** Parses an invocation envelope; null when it is not exactly the closed shape. */
export function parseInvocationEnvelope(
  json: unknown,
): InvocationEnvelope | null {
  const parsed = invocationEnvelopeSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/** The SHA-256 of a one-time code, hex: the only form in which a plugin keeps its codes. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  return Array.from(
    new Uint8Array(digest),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

/** Compares two secrets in time independent of where they differ. */
export function timingSafeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  }
  return diff === 0;
}
