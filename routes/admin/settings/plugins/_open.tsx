// Opening a plugin's own pages from Settings: its management page and declared manage views on its
// settings page, and the `settings_row` cards plugins declare (spec 1 parts 2.1, 2.3). Each button
// posts to /admin/plugins/launch, which mints a one-time launch after every check and opens the
// plugin's page in the same tab; the plugin's page links back to the admin.
import type { SettingsCard } from "../../../../core/plugins/cards.ts";

/** One launch button: the management page (`view` null) or one of its views. */
export function LaunchForm(props: {
  csrfToken: string;
  installationId: string;
  view: string | null;
  label: string;
  secondary?: boolean;
}) {
  return (
    <form method="post" action="/admin/plugins/launch" class="inline">
      <input type="hidden" name="_csrf" value={props.csrfToken} />
      <input
        type="hidden"
        name="installation_id"
        value={props.installationId}
      />
      <input type="hidden" name="kind" value="manage" />
      {props.view && <input type="hidden" name="view" value={props.view} />}
      <button type="submit" class={props.secondary ? "secondary" : undefined}>
        {props.label}
      </button>
    </form>
  );
}

/** What an installation offers to open, as its settings page shows it. */
export interface OpenablePlugin {
  id: string;
  name: string;
  /** The plugin declares a management page. */
  managed: boolean;
  /** Declared views the person may open now (a granted model they read). */
  views: { id: string; label: string }[];
  /** Declared views they may not open yet, and why not. */
  closedViews: number;
}

/** The "Open the plugin" card of a plugin's settings page; nothing when it has no page. */
export function OpenPlugin(
  props: { plugin: OpenablePlugin; csrfToken: string },
) {
  const p = props.plugin;
  if (!p.managed) return null;
  return (
    <section class="card" aria-labelledby="open-heading">
      <h2 id="open-heading">Open {p.name}</h2>
      <p class="muted">
        Opens the plugin's own pages in this tab, signed in as you for this
        visit only; they link back here when you are done.
      </p>
      <div class="buttons">
        <LaunchForm
          csrfToken={props.csrfToken}
          installationId={p.id}
          view={null}
          label="Management page"
        />
        {p.views.map((v) => (
          <LaunchForm
            key={v.id}
            csrfToken={props.csrfToken}
            installationId={p.id}
            view={v.id}
            label={v.label}
            secondary
          />
        ))}
      </div>
      {p.closedViews > 0 && (
        <p class="hint">
          Its other views open once the plugin is granted a model you can read
          (Grant, below).
        </p>
      )}
    </section>
  );
}

/** The plugins' `settings_row` cards, as Settings draws them; nothing without any. */
export function SettingsRowCards(
  props: { cards: SettingsCard[]; csrfToken: string; headingLevel?: 2 | 3 },
) {
  if (props.cards.length === 0) return null;
  const Heading = props.headingLevel === 3 ? "h3" : "h2";
  return (
    <div class="grid plugin-settings-cards">
      {props.cards.map((card) => (
        <section
          class="card plugin-card"
          key={`${card.installationId}/${card.id}`}
          aria-labelledby={`settings-card-${card.installationId}-${card.id}`}
        >
          <Heading id={`settings-card-${card.installationId}-${card.id}`}>
            {card.title}
          </Heading>
          <p class="muted">From {card.pluginName}</p>
          {card.body && <p>{card.body}</p>}
          <LaunchForm
            csrfToken={props.csrfToken}
            installationId={card.installationId}
            view={card.view}
            label={card.buttonLabel}
            secondary
          />
        </section>
      ))}
    </div>
  );
}
