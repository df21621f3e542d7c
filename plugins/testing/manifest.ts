// The protocol test plugin's manifest and the switches tests use to reach every outcome: its
// views, actions, operations, policies and media source, served at /manifest.json.

/** How the example answers the service's calls; tests switch these to reach every outcome. */
export interface ExampleBehaviour {
  /**
   * `ok` (2xx), `refuse` (403), `hang` (never answers), `late` (keeps the token it was handed,
   * then never answers), `redirect` (302), `huge` (64 KB body).
   */
  activation: "ok" | "refuse" | "hang" | "late" | "redirect" | "huge";
  /** `ok`, `garbage` (not JSON), `unknown_key`, `other_id` (another plugin id), `redirect`. */
  manifest: "ok" | "garbage" | "unknown_key" | "other_id" | "redirect";
  /** The version the manifest carries. */
  version: string;
  /** Capabilities the manifest requests. */
  capabilities: string[];
  /** Status the notification endpoint answers. */
  events: number;
  /** The manifest's `events`: the notifications it asks for (absent: the key is left out). */
  subscribes?: string[];
  /**
   * How operations answer: `ok` (exchange, then blocks), `refuse` (exchange, then refused),
   * `no_exchange` (blocks without exchanging), `garbage` (not JSON), `undeclared_block` (a
   * block kind the operation does not declare), `hang` (never answers), `unavailable` (503).
   */
  operation:
    | "ok"
    | "refuse"
    | "no_exchange"
    | "garbage"
    | "undeclared_block"
    | "hang"
    | "unavailable";
  /** The entry card declares a reviewed frame (`/frames/card`). */
  frame?: boolean;
  /** The manifest declares two media sources (`stock`: copy and reference; `uploads`: copy). */
  mediaSources?: boolean;
  /** Media-source pages answer `garbage` (not JSON) after the exchange; ok otherwise. */
  mediaSourceFault?: "garbage";
  /** Content policies the manifest declares, each with how it answers. */
  policies?: ExamplePolicy[];
  /** The manifest declares a rich block (`pull-quote`, version 2, with a repeatable group). */
  richBlocks?: boolean;
}

/**
 * One declared content policy and its answer: a decision (or a function of the check the
 * exchange gave), `hang` (never answers), `garbage` (not JSON), `no_exchange` (allows without
 * exchanging the code) or `unavailable` (503).
 */
export interface ExamplePolicy {
  id: string;
  kind: "save" | "restore" | "trash" | "transition";
  mode: "blocking" | "advisory";
  answer:
    | "hang"
    | "garbage"
    | "no_exchange"
    | "unavailable"
    /** A transform padded so envelope, exchange and answer total 65,536 + `fill` bytes. */
    | { fill: number }
    | Record<string, unknown>
    | ((check: Record<string, unknown>) => Record<string, unknown>);
}

/** The manifest v1 of the example plugin on `origin`. */
export function exampleManifest(origin: string, behaviour: ExampleBehaviour) {
  return {
    manifest_version: 1,
    protocol_version: 1,
    id: behaviour.manifest === "other_id"
      ? "com.example.impostor"
      : "com.example.publisher",
    name: "Example publisher",
    version: behaviour.version,
    description: "Publishes and unpublishes content for a person",
    base_url: `${origin}/`,
    activation_url: `${origin}/svc/activate`,
    management_url: `${origin}/installations/{installation_id}`,
    capabilities: behaviour.capabilities,
    manage_views: [{ id: "calendar", label: "Calendar" }],
    content_actions: [{
      id: "publish-later",
      label: "Publish later",
      scope: "entry",
    }],
    ui_extensions: [{
      id: "publish-card",
      placement: "entry_sidebar",
      title: "Publish later",
      body: "Choose a time to publish this entry.",
      button_label: "Open",
      opens: { kind: "content_action", id: "publish-later" },
      ...(behaviour.frame
        ? { frame: { url: `${origin}/frames/card`, height: 120 } }
        : {}),
    }],
    operations: [
      {
        id: "word-count",
        label: "Count words",
        url: `${origin}/svc/operations/word-count`,
        scope: "entry",
        audience: "interactive",
        requires: ["content:read"],
        input: [{ name: "note", label: "Note", type: "text", max_length: 20 }, {
          name: "mode",
          label: "Mode",
          type: "select",
          options: [{ value: "fast", label: "Fast" }, {
            value: "full",
            label: "Full",
          }],
        }],
        result: ["text", "json"],
      },
      {
        id: "site-report",
        label: "Site report",
        url: `${origin}/svc/operations/site-report`,
        scope: "site",
        audience: "interactive",
        requires: ["content:read", "site:plugins"],
        result: ["text", "json"],
      },
      {
        id: "archive",
        label: "Archive",
        url: `${origin}/svc/operations/archive`,
        scope: "entry",
        audience: "interactive",
        requires: ["content:write"],
        destructive: true,
        result: ["text", "json"],
      },
      {
        id: "release-check",
        label: "Release check",
        url: `${origin}/svc/operations/release-check`,
        scope: "entry",
        audience: "interactive",
        requires: ["workflow:release"],
        result: ["text", "json"],
      },
    ].filter((op) =>
      op.requires.every((r) =>
        r === "site:plugins" || behaviour.capabilities.includes(r)
      )
    ),
    ...(behaviour.mediaSources
      ? {
        media_sources: [{
          id: "stock",
          label: "Stock photos",
          url: `${origin}/svc/media/stock`,
          modes: ["copy", "reference"],
          delivery_origins: [STOCK_CDN],
        }, {
          id: "uploads",
          label: "Team uploads",
          url: `${origin}/svc/media/uploads`,
          modes: ["copy"],
        }],
      }
      : {}),
    ...(behaviour.policies
      ? {
        policies: behaviour.policies.map((p) => ({
          id: p.id,
          label: `Policy ${p.id}`,
          url: `${origin}/svc/policies/${p.id}`,
          kind: p.kind,
          mode: p.mode,
        })),
      }
      : {}),
    ...(behaviour.subscribes ? { events: behaviour.subscribes } : {}),
    ...(behaviour.richBlocks
      ? {
        rich_blocks: [{
          type: "pull-quote",
          label: "Pull quote",
          description: "A quotation set apart from the text",
          version: 2,
          controls: [
            { name: "text", label: "Quote", type: "textarea", required: true },
            { name: "by", label: "By", type: "text", max_length: 200 },
            {
              name: "sources",
              label: "Sources",
              type: "group",
              max_items: 5,
              controls: [{ name: "url", label: "Address", type: "url" }],
            },
          ],
          rules: [{
            kind: "one_of_required",
            fields: ["by", "sources"],
          }],
          render: {
            el: "blockquote",
            children: [{ field: "text" }],
          },
          migrations: [{
            from: 1,
            to: 2,
            steps: [{ op: "rename", from: "author", to: "by" }],
          }],
        }],
      }
      : {}),
    ...(behaviour.manifest === "unknown_key" ? { surprise: true } : {}),
  };
}

/** Where the `stock` source's reference items are delivered (never fetched by Stave). */
export const STOCK_CDN = "https://cdn.stock.example";
