// What each `deno task svc` command takes, as printed by --help and after a usage error.

/** One command's options: their parse types, what they mean, and which are required. */
export interface CommandSpec {
  summary: string;
  options: Record<
    string,
    { type: "string" | "boolean"; value?: string; help: string }
  >;
  required: readonly string[];
  /** Text after the options: examples and notes. */
  notes?: string;
}

/** Every command of `deno task svc`, in the order `--help` lists them. */
export const COMMANDS = {
  bootstrap: {
    summary:
      "Create a site, its languages, an administrator and optionally a management credential; prints JSON",
    options: {
      json: { type: "boolean", help: "Print the result as JSON (required)" },
      domain: {
        type: "string",
        value: "<host>",
        help: "Host name the site answers, e.g. cms.example.com",
      },
      locales: {
        type: "string",
        value: "<code,code,...>",
        help: "Languages, the default first, e.g. en,de",
      },
      "admin-email": {
        type: "string",
        value: "<email>",
        help: "The administrator; their password is printed once",
      },
      name: { type: "string", value: "<site name>", help: "Display name" },
      "credential-name": {
        type: "string",
        value: "<name>",
        help: "Also create a management credential (with --scopes)",
      },
      scopes: {
        type: "string",
        value: "<scope,scope,...>",
        help: "Scopes of that credential, e.g. content:read,content:write",
      },
    },
    required: ["json", "domain", "locales", "admin-email"],
    notes: [
      "A site answers only requests whose Host is its domain. On this machine, either",
      "send the header:  curl -H 'Host: <domain>' http://localhost:8000/health",
      "or, for a browser, bootstrap with --domain 127.0.0.1 (the demo site holds",
      "localhost) and open http://127.0.0.1:8000/admin.",
    ].join("\n"),
  },
  credential: {
    summary:
      "Create a management credential acting as an existing person; prints JSON",
    options: {
      json: { type: "boolean", help: "Print the result as JSON (required)" },
      domain: { type: "string", value: "<host>", help: "The site's domain" },
      "admin-email": {
        type: "string",
        value: "<email>",
        help: "The person the credential acts as",
      },
      name: { type: "string", value: "<name>", help: "Credential name" },
      scopes: {
        type: "string",
        value: "<scope,scope,...>",
        help: "Scopes; only what the person holds now may be granted",
      },
      models: {
        type: "string",
        value: "<model id,...>",
        help: "Limit the credential to these models",
      },
    },
    required: ["json", "domain", "admin-email", "name", "scopes"],
    notes: [
      "Works while the service runs: it then asks the running service, using the",
      "owner-only secret the service keeps in DATA_DIR/local-control.json.",
    ].join("\n"),
  },
  "generate-backend": {
    summary:
      "Write a site's standalone backend (Deno + Hono + Kysely) into a folder",
    options: {
      domain: { type: "string", value: "<host>", help: "The site's domain" },
      out: {
        type: "string",
        value: "<folder>",
        help: "Where to write the project; must be empty or absent",
      },
      models: {
        type: "string",
        value: "<slug,slug,...>",
        help: "Only these models (default: every model of the site)",
      },
      disable: {
        type: "string",
        value: "<model.operation,...>",
        help: "Operations to remove, e.g. posts.delete,tags.create",
      },
      commit: {
        type: "string",
        value: "<id>",
        help: "Answered by the backend in the x-artifact-commit header",
      },
    },
    required: ["domain", "out"],
    notes: [
      "Example, the demo site's blog:",
      "  deno task svc generate-backend --domain localhost --out ../demo-backend \\",
      "    --models posts,authors,tags,notes",
      "  cd ../demo-backend && deno task start",
    ].join("\n"),
  },
  migrate: {
    summary: "Apply pending database migrations and exit",
    options: {},
    required: [],
  },
  backup: {
    summary:
      "Copy the embedded store (database, KV, media, form attachments) into a new folder",
    options: {
      out: {
        type: "string",
        value: "<folder>",
        help: "A new or empty folder for the backup",
      },
    },
    required: ["out"],
    notes: [
      "Stop the service first: it holds DATA_DIR, and the command refuses while it runs.",
      "With DATABASE_URL, back up PostgreSQL with pg_dump instead (docs/deploy.md).",
    ].join("\n"),
  },
  "move-to-postgres": {
    summary:
      "Copy everything of the embedded store into an empty PostgreSQL database",
    options: {
      to: {
        type: "string",
        value: "<postgres url>",
        help: "The target database (migrated on the way; it must hold no site)",
      },
    },
    required: ["to"],
    notes: [
      "Stop the service first. Sites, entries with their versions and history, settings, menus,",
      "roles, people, credentials and audit are copied in one transaction; copy the media as",
      "docs/deploy.md says, then start with DATABASE_URL set to the target.",
    ].join("\n"),
  },
  restore: {
    summary:
      "Fill an empty DATA_DIR from a backup made by svc backup, after checking every file",
    options: {
      from: {
        type: "string",
        value: "<folder>",
        help: "The backup's folder",
      },
    },
    required: ["from"],
    notes:
      "DATA_DIR must hold no database yet; nothing is written when a file is missing or damaged.",
  },
} as const satisfies Record<string, CommandSpec>;

/** A command name of `deno task svc`. */
export type CommandName = keyof typeof COMMANDS;

/** The overview: every command with its one-line summary. */
export function overview(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  return [
    "Usage: deno task svc <command> [options]",
    "",
    "Operator commands for scripts and CI. They use the same settings as the service",
    "(DATABASE_URL, DATA_DIR, KV_PATH); see the README's Settings table.",
    "",
    "Commands:",
    ...Object.entries(COMMANDS).map(([name, spec]) =>
      `  ${name.padEnd(width)}  ${spec.summary}`
    ),
    "",
    "Options for every command:",
    "  --help, -h  Print the command's usage and exit without touching any data",
    "",
    "Run `deno task svc <command> --help` for a command's options.",
  ].join("\n");
}

/** One command's usage: its line, each option, then its notes. */
export function commandUsage(name: CommandName): string {
  const spec: CommandSpec = COMMANDS[name];
  const required = new Set(spec.required);
  const line = Object.entries(spec.options).map(([option, o]) => {
    const text = `--${option}${o.value ? ` ${o.value}` : ""}`;
    return required.has(option) ? text : `[${text}]`;
  }).join(" ");
  const entries = Object.entries(spec.options).map(([option, o]) => [
    `--${option}${o.value ? ` ${o.value}` : ""}`,
    o.help + (required.has(option) ? "" : " (optional)"),
  ]);
  entries.push(["--help, -h", "Print this usage and exit"]);
  const width = Math.max(...entries.map(([a]) => a.length));
  return [
    `Usage: deno task svc ${name}${line ? ` ${line}` : ""}`,
    "",
    spec.summary,
    "",
    "Options:",
    ...entries.map(([a, b]) => `  ${a.padEnd(width)}  ${b}`),
    ...(spec.notes ? ["", spec.notes] : []),
  ].join("\n");
}
