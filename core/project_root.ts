// Where the checkout lives: static files, island sources and companion entry points are read from it.

/** The project root, where static/ and the island sources live. */
export const PROJECT_ROOT = new URL("..", import.meta.url).pathname.replace(
  /\/$/,
  "",
);
