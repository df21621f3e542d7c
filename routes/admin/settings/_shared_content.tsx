// The "Shared content" card of Settings → Public API: which public types this site shares with
// other sites of the installation, a form to share one more, and revoke buttons.
import type { SharedGrant } from "../../../core/public/shared_grants.ts";
import { scrollRegion } from "../_table.tsx";

/** What the card shows. */
export interface SharedContentData {
  csrfToken: string;
  siteSlug: string;
  grants: SharedGrant[];
  /** Other sites the person belongs to. */
  sites: { id: string; slug: string; name: string }[];
  /** Public content types of this site. */
  models: { id: string; name: string; slug: string }[];
}

/** The card. */
export function SharedContentCard({ data }: { data: SharedContentData }) {
  return (
    <section class="card" aria-labelledby="shared-content-heading">
      <h2 id="shared-content-heading">Shared content</h2>
      <p class="muted">
        Another site of this installation can read the published items of a
        public content type of this site through its own public API, at{" "}
        <code>/v1/_shared/{data.siteSlug}/&lt;type&gt;</code>: public fields
        only, no drafts, no other types, no filters, and never any editing. You
        can share with the sites you also belong to.
      </p>
      {data.grants.length === 0
        ? <p class="muted">Nothing shared yet.</p>
        : (
          <div class="table-wrap" {...scrollRegion("Content types table")}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Content type</th>
                  <th scope="col">Shared with</th>
                  <th scope="col">Since</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {data.grants.map((grant) => (
                  <tr key={grant.id}>
                    <td>{grant.model.name}</td>
                    <td>{grant.grantee.name}</td>
                    <td>{grant.created_at.slice(0, 16).replace("T", " ")}</td>
                    <td>
                      {grant.revoked_at
                        ? "Revoked"
                        : (
                          <form method="post" class="inline">
                            <input
                              type="hidden"
                              name="_csrf"
                              value={data.csrfToken}
                            />
                            <input
                              type="hidden"
                              name="action"
                              value="unshare"
                            />
                            <input type="hidden" name="id" value={grant.id} />
                            <button
                              type="submit"
                              class="secondary"
                              aria-label={`Stop sharing ${grant.model.name} with ${grant.grantee.name}`}
                            >
                              Stop sharing
                            </button>
                          </form>
                        )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      {data.sites.length === 0 || data.models.length === 0
        ? (
          <p class="muted">
            {data.sites.length === 0
              ? "You belong to no other site to share with."
              : "This site has no public content type to share."}
          </p>
        )
        : (
          <form method="post">
            <input type="hidden" name="_csrf" value={data.csrfToken} />
            <input type="hidden" name="action" value="share" />
            <p>
              <label for="share-model">Content type</label>
              <select id="share-model" name="model" required>
                {data.models.map((m) => (
                  <option key={m.id} value={m.id}>{m.name}</option>
                ))}
              </select>
            </p>
            <p>
              <label for="share-site">Share with</label>
              <select id="share-site" name="site" required>
                {data.sites.map((s) => (
                  <option key={s.id} value={s.id}>{s.name}</option>
                ))}
              </select>
            </p>
            <button type="submit">Share</button>
          </form>
        )}
    </section>
  );
}
