// The security settings of the generated backend. They are fixed: generated/security.json
// records them, and the backend refuses to start when the file says anything else, so a
// customisation cannot turn off guards, shape checks or error protection by configuration.

/** The settings and the only values they may take. */
export const FIXED_SECURITY = {
  requireGuardShape: true,
  validateGuardShapes: true,
  enableUpdateEach: false,
  guardResolutionOrder: "before-hooks",
  allowE2EGuardBypass: false,
  validateResolvedShapes: true,
} as const;

/** The settings file as generated: the fixed ones and the installation's variant policy. */
export interface SecuritySettings {
  requireGuardShape: boolean;
  validateGuardShapes: boolean;
  enableUpdateEach: boolean;
  guardResolutionOrder: string;
  allowE2EGuardBypass: boolean;
  validateResolvedShapes: boolean;
  /** Kept as the installation set it; the service offers no default variants (false). */
  requireDefaultVariantOptIn: boolean;
}

/** The settings of `value` that differ from their fixed value (or are missing). */
export function changedSecurity(value: unknown): string[] {
  const doc = (value ?? {}) as Record<string, unknown>;
  return Object.entries(FIXED_SECURITY).filter(([key, fixed]) =>
    doc[key] !== fixed
  ).map(([key]) => key);
}
