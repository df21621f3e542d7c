// Where plugin UI goes in the admin: sidebar cards of the entry editor and badge columns of entry lists.
//
// Cards are the installations' declared `ui_extensions` (spec 1 part 2.1), loaded by the page
// (core/plugins/cards.ts) and drawn with core controls only: a title, a sentence, what the
// plugin's read-only entry operations answer about the entry (core/admin/plugin_cards.ts), and a
// button that posts to /admin/plugins/launch, and a card that declares a reviewed frame draws it sandboxed
// (islands/PluginFrame.tsx). Without plugins they render nothing, so pages look and
// weigh the same. List columns are the column operations granted on the list's model, run once
// per list page for the entries it shows (core/admin/plugin_operations.ts, listColumns).
import type { PluginColumn } from "../../core/admin/plugin_operations.ts";
import type { CardStatus, PluginCard } from "../../core/plugins/cards.ts";
import PluginFrame from "../../islands/PluginFrame.tsx";

/** Props of {@link PluginCards}: the entry language the editor shows, and its cards. */
export interface PluginCardsProps {
  model: string;
  entry: string;
  locale: string;
  /** The entry language's own id, which a content action is bound to. */
  instance?: string;
  cards?: readonly PluginCard[];
  csrfToken?: string;
}

/** The entry editor's sidebar cards; nothing while no plugin offers one for this entry. */
export function PluginCards(props: PluginCardsProps) {
  const cards = props.cards ?? [];
  if (cards.length === 0 || !props.instance) return null;
  return (
    <>
      {cards.map((card) => (
        <section
          class="card plugin-card"
          key={`${card.installationId}/${card.id}`}
          aria-labelledby={`plugin-card-${card.installationId}-${card.id}`}
        >
          <h2 id={`plugin-card-${card.installationId}-${card.id}`}>
            {card.title}
          </h2>
          <p class="muted">{card.pluginName}</p>
          {card.body && <p>{card.body}</p>}
          {card.frame && props.instance && (
            <PluginFrame
              src={card.frame.url}
              height={card.frame.height}
              title={`${card.title} (${card.pluginName})`}
              context={{
                installation_id: card.installationId,
                card_id: card.id,
                instance_id: props.instance,
                locale: props.locale,
              }}
            />
          )}
          {card.status?.map((status) => (
            <CardStatusList key={status.label} status={status} />
          ))}
          {/* The same tab: the plugin's page links back to this editor when the person is done. */}
          <form method="post" action="/admin/plugins/launch">
            <input type="hidden" name="_csrf" value={props.csrfToken ?? ""} />
            <input
              type="hidden"
              name="installation_id"
              value={card.installationId}
            />
            <input type="hidden" name="action" value={card.action} />
            <input type="hidden" name="instance_id" value={props.instance} />
            <button type="submit" class="secondary">
              {card.buttonLabel}
            </button>
          </form>
        </section>
      ))}
    </>
  );
}

/**
 * A card's status answer as a list (a sidebar is too narrow for a table): each row's first
 * column leads, the others follow labelled.
 */
function CardStatusList({ status }: { status: CardStatus }) {
  const [lead, ...rest] = status.columns;
  return (
    <div class="card-status">
      <h3>{status.label}</h3>
      {status.error
        ? <p class="muted">Not available now: {status.error}</p>
        : status.rows.length === 0 || !lead
        ? <p class="muted">None.</p>
        : (
          <ul class="plain">
            {status.rows.map((row, i) => (
              <li key={i}>
                <strong>{row[lead.key]}</strong>
                {rest.filter((c) => row[c.key]).map((c) => (
                  <span key={c.key} class="card-status-cell">
                    {c.label}: {row[c.key]}
                  </span>
                ))}
              </li>
            ))}
          </ul>
        )}
    </div>
  );
}

/** Props of {@link PluginListBadges}: the header cells, or one entry's cells. */
export interface PluginListBadgesProps {
  columns?: PluginColumn[];
  /** The row's entry language id; absent for the header. */
  instance?: string;
  header?: boolean;
}

/** The entry list's plugin columns: a header cell each, and the row's badge when it has one. */
export function PluginListBadges(props: PluginListBadgesProps) {
  const columns = props.columns ?? [];
  if (columns.length === 0) return null;
  if (props.header) {
    return (
      <>
        {columns.map((c) => (
          <th scope="col" key={c.key} title={`From ${c.pluginName}`}>
            {c.label}
          </th>
        ))}
      </>
    );
  }
  return (
    <>
      {columns.map((c) => {
        const badge = props.instance ? c.cells[props.instance] : undefined;
        return (
          <td key={c.key}>
            {badge && (
              <span class={`badge tone-${badge.tone}`}>{badge.label}</span>
            )}
          </td>
        );
      })}
    </>
  );
}
