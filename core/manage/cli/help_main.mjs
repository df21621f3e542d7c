// Part of svc-manage.mjs (joined by build.ts): help texts and the entry point, last so every declaration exists.
// ---- Help ----

function overview() {
  const lines = [
    "svc-manage.mjs: the Stave Management API from a terminal.",
    "",
    "Usage: svc-manage.mjs <command> [options] --url <origin>",
    "",
    "Origin: --url or SVC_URL (https; http only on localhost, 127.0.0.1, [::1]).",
    "Credential: SVC_MANAGEMENT_TOKEN, else the saved login of the origin.",
    "Exit codes: 0 success, 1 the service refused, 2 usage, network or credential problem.",
    "",
    "Commands:",
  ];
  for (const [name, summary] of Object.entries(BUILT_IN)) {
    lines.push(`  ${name.padEnd(34)} ${summary}`);
  }
  for (const command of CONTRACT.commands) {
    lines.push(`  ${command.command.padEnd(34)} ${command.summary}`);
  }
  lines.push("", 'Run "svc-manage.mjs <command> --help" for its options.');
  return lines.join("\n");
}

function commandHelp(command) {
  const lines = [
    `svc-manage.mjs ${command.command}: ${command.summary}.`,
    "",
    `${command.method} ${CONTRACT.basePath}${command.path}   scope ${command.scope}`,
    "",
    "Options:",
  ];
  for (const option of command.options) {
    lines.push(
      `  ${`${option.flag} <${option.type}>`.padEnd(34)} ${
        option.required ? "required" : "optional"
      }${option.description ? `; ${option.description}` : ""}`,
    );
  }
  if (command.multipart !== null) {
    lines.push(
      `  ${
        "--file <path | ->".padEnd(34)
      } required; the file, streamed (- reads stdin)`,
      `  ${
        "--content-type <type>".padEnd(34)
      } optional; else taken from the file's first bytes or its name`,
    );
    if (command.body) {
      lines.push(
        `  ${
          "--body <JSON | @file | ->".padEnd(34)
        } optional; the other form fields:`,
      );
      for (const field of command.body) {
        lines.push(
          `      ${field.name} (${field.type})${
            field.required ? " required" : ""
          }`,
        );
      }
    }
  } else if (command.body) {
    lines.push(
      `  ${
        "--body <JSON | @file | ->".padEnd(34)
      } required; a JSON object with:`,
    );
    for (const field of command.body) {
      lines.push(
        `      ${field.name} (${field.type})${
          field.required ? " required" : ""
        }`,
      );
    }
  }
  if (command.key) {
    lines.push(
      `  ${
        "--key <key>".padEnd(34)
      } Idempotency-Key; made and printed on stderr when left out, give it again to retry safely`,
    );
  }
  if (command.pages) {
    lines.push(`  ${"--all".padEnd(34)} read every page and print one list`);
  }
  if (command.binary) {
    lines.push(
      `  ${"--file <path>".padEnd(34)} required; the bytes to send${
        command.command === "upload-import-part"
          ? " (without --part: the whole archive in 5 MiB parts, then completed with its SHA-256)"
          : ""
      }`,
    );
  }
  if (command.byteRange) {
    lines.push(
      `  ${
        "--out <path>".padEnd(34)
      } read every page, check the SHA-256, then write the file`,
    );
  }
  if (command.follow) {
    lines.push(
      `  ${
        "--follow".padEnd(34)
      } repeat the step (a new key each) until the job is blocked, ready or finished`,
    );
  }
  lines.push(`  ${"--url <origin>".padEnd(34)} the service (or SVC_URL)`);
  lines.push("", "Example:", `  ${exampleOf(command)}`);
  return lines.join("\n");
}

/** One command line that runs `command`, with a placeholder for each required value. */
function exampleOf(command) {
  const words = ["node svc-manage.mjs", command.command];
  for (const option of command.options) {
    if (option.required) {
      words.push(option.flag, `<${option.name.replaceAll("_", "-")}>`);
    }
  }
  if (command.multipart !== null || command.binary) {
    words.push("--file", "./photo.jpg");
  }
  if (command.body && command.multipart === null) {
    const required = command.body.filter((field) => field.required);
    words.push(
      "--body",
      `'${
        JSON.stringify(
          Object.fromEntries(required.map((f) => [f.name, `<${f.name}>`])),
        )
      }'`,
    );
  }
  return words.join(" ");
}

const BUILT_IN_HELP = {
  login: [
    "svc-manage.mjs login: sign in through the browser (OAuth 2.0 with PKCE S256).",
    "",
    "Options:",
    "  --scope <scopes>   ask for fewer scopes, space or comma separated",
    "  --no-open          print the address instead of opening a browser",
    "  --url <origin>     the service (or SVC_URL)",
    "",
    "Waits 5 minutes for the browser, then gives up (exit 2).",
  ].join("\n"),
  status:
    "svc-manage.mjs status: the origin, where the credential comes from, and its site.",
  logout:
    "svc-manage.mjs logout: revoke the saved login, then delete it; if revoking fails the file is kept.",
  mcp:
    "svc-manage.mjs mcp: a stdio MCP server; each JSON-RPC line is sent to <origin>/api/manage/mcp.",
};

// ---- Main ----

async function main(argv) {
  const { flags, rest } = parseArgs(argv);
  const name = rest[0];
  if (rest.length > 1) {
    throw new UsageError(`Unexpected argument "${rest[1]}"`);
  }
  if (name === undefined || name === "help") {
    process.stdout.write(overview() + "\n");
    return flags.get("help") === true || name === "help" ? EXIT_OK : EXIT_USAGE;
  }
  const command = findCommand(name);
  if (!command && !(name in BUILT_IN)) {
    throw new UsageError(`Unknown command "${name}" (see --help)`);
  }
  if (flags.get("help") === true) {
    process.stdout.write(
      (command ? commandHelp(command) : BUILT_IN_HELP[name]) + "\n",
    );
    return EXIT_OK;
  }
  const origin = originOf(flags);
  flags.delete("url");
  if (name === "login") await login(origin, flags);
  else if (name === "status") await status(origin);
  else if (name === "logout") await logout(origin);
  else if (name === "mcp") await mcp(origin);
  else await runCommand(command, flags, origin);
  return EXIT_OK;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    if (error instanceof UsageError) {
      say(`svc-manage: ${error.message}`);
      process.exit(EXIT_USAGE);
    }
    if (error instanceof Refused) {
      say(`svc-manage: ${error.message}`);
      process.exit(EXIT_REFUSED);
    }
    say(`svc-manage: unexpected failure: ${error?.message ?? error}`);
    process.exit(EXIT_USAGE);
  },
);
