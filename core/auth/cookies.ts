// Names of the cookies the admin uses, shared by the session and CSRF middleware.

/** HttpOnly, SameSite session cookie holding the session token (its digest is stored). */
export const SESSION_COOKIE = "stave_session";
