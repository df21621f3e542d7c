// The variables every request carries on `c.var`, set by app-wide middleware.
import type { LogEntry, Services } from "../services.ts";
import type { SiteRecord } from "../sites/site_store.ts";
import type { Installation } from "../plugins/installation_store.ts";

/** The person a valid session cookie names. */
export interface SignedInUser {
  id: string;
  email: string;
  displayName: string;
  sessionId: string;
}

/** Hono environment of the application. */
export interface AppEnv {
  Variables: {
    services: Services;
    log: (entry: LogEntry) => void;
    /** How errors are answered on this route: JSON body, HTML page, or plain text. */
    responseKind: "json" | "html" | "text";
    /** The site this request belongs to, once resolved from the Host header. */
    site: SiteRecord;
    /** The signed-in person, when a valid session cookie came with the request. */
    user: SignedInUser | undefined;
    /** The CSRF token forms of this response must carry. */
    csrfToken: string;
    /** The installation an `/api/plugin/v1` request's token names (set by its middleware). */
    installation: Installation | undefined;
    /**
     * The route pattern a read answered before routing stands for (core/public/front_reads.ts);
     * unset on requests the router matched.
     */
    frontRoute: string | undefined;
  };
}
