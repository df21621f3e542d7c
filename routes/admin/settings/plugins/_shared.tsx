// What the Settings → Plugins pages share: capabilities in words, the grant form, refusals.
import type { PluginAdminRefusal } from "../../../../core/plugins/installations.ts";
import {
  CAPABILITIES,
  type Capability,
} from "../../../../core/plugins/protocol.ts";

/** What each capability lets a plugin do, in an administrator's words (spec 1 part 2.1). */
export const CAPABILITY_WORDS: Record<Capability, string> = {
  "content:read": "Read entries of the granted models",
  "content:write": "Save new versions of entries for a person",
  "content:create": "Create entries for a person",
  "content:delete": "Move entries to the trash for a person",
  "content:propose": "Propose changes a person reviews",
  "draft:write": "Write a person's working drafts",
  "workflow:read": "See workflow states and the moves a person may make",
  "workflow:publish": "Publish entries for a person",
  "workflow:unpublish": "Unpublish entries for a person",
  "workflow:locale": "Publish or unpublish one language at a time",
  "workflow:release": "Publish several entries together in one release",
  "media:read": "Read the media library",
  "media:write": "Upload files to the media library for a person",
  "media:update": "Change media details for a person",
  "media:source": "Offer its own files in the media picker",
};

/** A capability name from a form, or null. */
export function capabilityOf(value: string): Capability | null {
  return (CAPABILITIES as readonly string[]).includes(value)
    ? value as Capability
    : null;
}

/** The HTTP status an administrative refusal answers on these pages. */
export function refusalStatus(
  refusal: PluginAdminRefusal,
): 400 | 403 | 404 | 409 | 422 | 502 | 503 | 504 {
  switch (refusal.code) {
    case "missing_permission":
    case "site_access_denied":
      return 403;
    case "not_found":
      return 404;
    case "installation_state":
    case "already_installed":
    case "manifest_identity_changed":
      return 409;
    case "activation_refused":
      return 422;
    case "audit_unavailable":
      return 503;
    case "plugin_timeout":
      return 504;
    case "plugin_unreachable":
    case "plugin_response_invalid":
    case "remote_redirect_refused":
      return 502;
    default:
      return 400;
  }
}

/** The refusal in words, with the manifest's problems when it has them. */
export function RefusalMessage(props: { refusal: PluginAdminRefusal }) {
  const issues = props.refusal.issues ?? [];
  return (
    <div role="alert" class="alert">
      <p>{props.refusal.message}</p>
      {issues.length > 0 && (
        <ul>
          {issues.slice(0, 10).map((issue, i) => (
            <li key={i}>
              <code>{issue.path || "(manifest)"}</code>: {issue.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Checkboxes for a grant: the capabilities `offered`, and the site's models. */
export function GrantFields(props: {
  offered: readonly Capability[];
  granted: readonly string[];
  models: readonly { id: string; name: string; slug: string }[];
  grantedModels: readonly string[];
}) {
  return (
    <>
      <fieldset>
        <legend>Capabilities</legend>
        {props.offered.length === 0 && (
          <p class="muted">The plugin asks for no capability.</p>
        )}
        {props.offered.map((capability) => (
          <label key={capability} class="check">
            <input
              type="checkbox"
              name="capability"
              value={capability}
              checked={props.granted.includes(capability)}
            />{" "}
            <code>{capability}</code> — {CAPABILITY_WORDS[capability]}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Models it may reach</legend>
        {props.models.map((model) => (
          <label key={model.id} class="check">
            <input
              type="checkbox"
              name="model"
              value={model.id}
              checked={props.grantedModels.includes(model.id)}
            />{" "}
            {/* A grant holds ids; the current slug beside each keeps a rename readable. */}
            {model.name} <code>{model.slug}</code>{" "}
            <span class="muted">{model.id}</span>
          </label>
        ))}
      </fieldset>
    </>
  );
}
