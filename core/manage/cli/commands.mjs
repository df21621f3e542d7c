// Part of svc-manage.mjs (joined by build.ts): running one command of the contract, with its file helpers.
// deno-lint-ignore-file no-unused-vars -- the parts are joined into one file; each alone looks unused
// ---- Commands of the contract ----

function findCommand(name) {
  return CONTRACT.commands.find((c) => c.command === name);
}

async function readBody(flags) {
  const raw = flags.get("body");
  if (raw === undefined) return undefined;
  let text = raw;
  if (raw === "-") {
    const chunks = [];
    for await (const chunk of process.stdin) chunks.push(chunk);
    text = Buffer.concat(chunks).toString("utf8");
  } else if (raw.startsWith("@")) {
    try {
      text = readFileSync(raw.slice(1), "utf8");
    } catch {
      throw new UsageError(`Cannot read the body file "${raw.slice(1)}"`);
    }
  }
  try {
    const value = JSON.parse(text);
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new Error("not an object");
    }
    return value;
  } catch {
    throw new UsageError(
      "--body must be a JSON object (or @file, or - for stdin)",
    );
  }
}

function newKey() {
  return randomBytes(16).toString("base64url");
}

function waitSeconds(response) {
  const seconds = Number(response.headers.get("retry-after"));
  return Number.isFinite(seconds) && seconds >= 0
    ? Math.min(seconds, 60)
    : null;
}

/** Sends one request; on 429, and on 409 idempotency_in_progress with Retry-After, waits and sends it again with the same key. */
async function request(
  origin,
  bearer,
  command,
  { path, query, body, bytes, form, key },
) {
  const url = new URL(`${origin}${CONTRACT.basePath}${path}`);
  for (const [name, value] of Object.entries(query)) {
    url.searchParams.set(name, value);
  }
  const headers = {
    authorization: `Bearer ${bearer}`,
    accept: "application/json",
  };
  if (key !== undefined) headers["idempotency-key"] = key;
  if (body !== undefined) headers["content-type"] = "application/json";
  if (bytes !== undefined) {
    headers["content-type"] = "application/octet-stream";
  }
  if (form !== undefined) {
    headers["content-type"] = `multipart/form-data; boundary=${form.boundary}`;
    headers["content-length"] = String(form.length);
  }
  for (let attempt = 0;; attempt++) {
    const response = await send(url, {
      method: command.method,
      headers,
      // A multipart body is streamed from the file, made anew for each attempt.
      body: form !== undefined
        ? form.stream()
        : bytes ?? (body === undefined ? undefined : JSON.stringify(body)),
      ...(form !== undefined ? { duplex: "half" } : {}),
    });
    const answer = await readJson(response);
    const wait = waitSeconds(response);
    const busy = response.status === 429 ||
      (response.status === 409 &&
        answer?.error?.code === "idempotency_in_progress");
    if (busy && wait !== null && attempt < MAX_RETRIES) {
      say(`Busy (${response.status}): retrying in ${wait} s with the same key`);
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
      continue;
    }
    return { status: response.status, body: answer };
  }
}

async function runCommand(command, flags, origin) {
  let path = command.path;
  const query = {};
  // upload-import-part --file without --part sends the whole file in 5 MiB parts.
  const wholeFile = command.command === "upload-import-part" &&
    !flags.has("part") && typeof flags.get("file") === "string";
  const values = {};
  for (const option of command.options) {
    const value = flags.get(option.flag.slice(2));
    flags.delete(option.flag.slice(2));
    if (value === undefined || value === true) {
      if (option.required && !(wholeFile && option.name === "part")) {
        throw new UsageError(
          `${command.command} needs ${option.flag} <${option.type}>`,
        );
      }
      continue;
    }
    values[option.name] = value;
    if (option.in === "path") {
      path = path.replace(`{${option.name}}`, encodeURIComponent(value));
    } else query[option.name] = value;
  }
  const file = flags.get("file");
  const out = flags.get("out");
  const follow = flags.get("follow") === true;
  const contentType = flags.get("content-type");
  for (const name of ["file", "out", "follow", "content-type"]) {
    flags.delete(name);
  }
  const takesFile = command.binary || command.multipart !== null;
  if (takesFile && typeof file !== "string") {
    throw new UsageError(
      `${command.command} needs --file <path> (or --file - to read stdin)`,
    );
  }
  if (!takesFile && file !== undefined) {
    throw new UsageError(`${command.command} takes no --file`);
  }
  if (
    contentType !== undefined &&
    (command.multipart === null || typeof contentType !== "string" ||
      !/^[\w.+-]+\/[\w.+-]+$/.test(contentType))
  ) {
    throw new UsageError(
      command.multipart === null
        ? `${command.command} sends no file part: --content-type does not apply`
        : "--content-type needs a media type such as image/png",
    );
  }
  if (out !== undefined && (!command.byteRange || typeof out !== "string")) {
    throw new UsageError(
      command.byteRange
        ? "--out needs a file path"
        : `${command.command} reads no file: --out does not apply`,
    );
  }
  if (follow && !command.follow) {
    throw new UsageError(
      `${command.command} is not a job step: --follow does not apply`,
    );
  }
  let bytes;
  if (typeof file === "string" && command.binary) bytes = await readInput(file);
  const all = flags.get("all") === true;
  flags.delete("all");
  if (all && !command.pages) {
    throw new UsageError(
      `${command.command} has no pages: --all does not apply`,
    );
  }
  let body;
  let form;
  if (command.multipart !== null) {
    // The other parts are optional text fields, given as one JSON object.
    const fields = (await readBody(flags)) ?? {};
    form = await multipartOf(command.multipart, file, fields, contentType);
  } else if (command.body) {
    body = await readBody(flags);
    if (body === undefined) {
      throw new UsageError(`${command.command} needs --body '<JSON object>'`);
    }
  } else if (flags.has("body")) {
    throw new UsageError(`${command.command} takes no --body`);
  }
  flags.delete("body");
  let key;
  if (command.key) {
    key = flags.get("key") ?? newKey();
    if (!/^[\x21-\x7E]{1,128}$/.test(key)) {
      throw new UsageError("--key must be 1 to 128 visible ASCII characters");
    }
    say(`Idempotency-Key: ${key}`);
  } else if (flags.has("key")) {
    throw new UsageError(
      `${command.command} is not a write: --key does not apply`,
    );
  }
  flags.delete("key");
  const unknown = [...flags.keys()];
  if (unknown.length > 0) {
    throw new UsageError(
      `Unknown option --${unknown[0]} for ${command.command} (see --help)`,
    );
  }
  const { token } = await credentialFor(origin);
  let answer;
  if (wholeFile) {
    answer = await uploadWholeArchive(origin, token, values.id, bytes, key);
  } else if (out !== undefined) {
    answer = await readWholeFile(origin, token, command, path, query, out);
  } else {
    answer = await request(origin, token, command, {
      path,
      query,
      body,
      bytes,
      form,
      key,
    });
  }
  while (follow && answer.status < 400 && !jobStopped(answer.body)) {
    say(
      `${answer.body.kind} ${answer.body.id}: ${answer.body.state}, next ${answer.body.phase}`,
    );
    const next = newKey();
    say(`Idempotency-Key: ${next}`);
    answer = await request(origin, token, command, {
      path,
      query: {},
      key: next,
    });
  }
  if (all && answer.status < 400) {
    const data = [...(answer.body.data ?? [])];
    while (answer.body.page?.has_more && answer.body.page.next_cursor) {
      answer = await request(origin, token, command, {
        path,
        query: { ...query, cursor: answer.body.page.next_cursor },
      });
      if (answer.status >= 400) break;
      data.push(...(answer.body.data ?? []));
    }
    if (answer.status < 400) answer = { status: answer.status, body: { data } };
  }
  process.stdout.write(JSON.stringify(answer.body, null, 2) + "\n");
  if (answer.status === 401) {
    throw new UsageError(
      "The credential was refused (401): sign in again or check SVC_MANAGEMENT_TOKEN",
    );
  }
  if (answer.status >= 400) {
    const error = answer.body?.error ?? {};
    throw new Refused(
      `Refused ${answer.status} ${error.code ?? ""}: ${
        commandNames(error.message ?? "")
      }`,
    );
  }
}

/** A refusal's hint names routes ("GET /models"); at a terminal the command says more. */
function commandNames(text) {
  return text.replace(
    /\b(GET|POST|PUT|DELETE) (\/[A-Za-z0-9_{}\/-]*[A-Za-z0-9_}-])/g,
    (whole, method, path) => {
      const found = CONTRACT.commands.find((c) =>
        c.method === method &&
        new RegExp(
          `^${c.path.replace(/\{[^}]+\}/g, "[^/]+")}$`,
        ).test(path)
      );
      return found ? found.command : whole;
    },
  );
}

/** The bytes of `--file`: a path, or `-` for stdin. */
async function readInput(file) {
  if (file === "-") {
    const chunks = [];
    for await (const chunk of process.stdin) chunks.push(chunk);
    return Buffer.concat(chunks);
  }
  try {
    return readFileSync(file);
  } catch {
    throw new UsageError(`Cannot read the file "${file}"`);
  }
}

/** Media types by the first bytes of a file; the service checks the content itself too. */
const MAGIC = [
  [[0x89, 0x50, 0x4e, 0x47], "image/png"],
  [[0xff, 0xd8, 0xff], "image/jpeg"],
  [[0x47, 0x49, 0x46, 0x38], "image/gif"],
  [[0x25, 0x50, 0x44, 0x46], "application/pdf"],
  [[0x49, 0x44, 0x33], "audio/mpeg"],
  [[0x1a, 0x45, 0xdf, 0xa3], "video/webm"],
];

/** Media types by file name, for what the first bytes do not tell. */
const EXTENSIONS = {
  avif: "image/avif",
  csv: "text/csv",
  gif: "image/gif",
  jpeg: "image/jpeg",
  jpg: "image/jpeg",
  json: "application/json",
  md: "text/markdown",
  mp3: "audio/mpeg",
  mp4: "video/mp4",
  pdf: "application/pdf",
  png: "image/png",
  svg: "image/svg+xml",
  txt: "text/plain",
  wav: "audio/wav",
  webm: "video/webm",
  webp: "image/webp",
};

function sniff(head, name) {
  for (const [magic, type] of MAGIC) {
    if (magic.every((byte, i) => head[i] === byte)) return type;
  }
  const text = head.subarray(0, 12).toString("latin1");
  if (text.startsWith("RIFF") && text.slice(8, 12) === "WEBP") {
    return "image/webp";
  }
  if (text.slice(4, 8) === "ftyp") {
    return text.slice(8, 12) === "avif" ? "image/avif" : "video/mp4";
  }
  const extension = name.toLowerCase().split(".").pop();
  return EXTENSIONS[extension] ?? "application/octet-stream";
}

/**
 * A `multipart/form-data` body whose file part is streamed from disk, never held whole in
 * memory (stdin is read first: its length must be known). `stream()` makes a fresh body for
 * each attempt, so a retry after 429 sends the same bytes again.
 */
async function multipartOf(part, file, fields, contentType) {
  const boundary = `svc-manage-${randomBytes(12).toString("hex")}`;
  const fromStdin = file === "-";
  const name = fromStdin ? "stdin" : basename(file);
  let size;
  let head;
  let whole;
  if (fromStdin) {
    whole = await readInput(file);
    size = whole.length;
    head = whole.subarray(0, 16);
  } else {
    try {
      size = statSync(file).size;
      const fd = openSync(file, "r");
      head = Buffer.alloc(16);
      readSync(fd, head, 0, 16, 0);
      closeSync(fd);
    } catch {
      throw new UsageError(`Cannot read the file "${file}"`);
    }
  }
  const type = contentType ?? sniff(head, name);
  const quoted = name.replace(/["\\\r\n]/g, "_");
  let preamble = "";
  for (const [field, value] of Object.entries(fields)) {
    preamble +=
      `--${boundary}\r\ncontent-disposition: form-data; name="${field}"\r\n\r\n${
        typeof value === "string" ? value : JSON.stringify(value)
      }\r\n`;
  }
  preamble +=
    `--${boundary}\r\ncontent-disposition: form-data; name="${part}"; filename="${quoted}"\r\ncontent-type: ${type}\r\n\r\n`;
  const start = Buffer.from(preamble, "utf8");
  const end = Buffer.from(`\r\n--${boundary}--\r\n`, "utf8");
  say(`Sending ${name} (${size} bytes, ${type})`);
  return {
    boundary,
    length: start.length + size + end.length,
    stream() {
      const source = fromStdin ? null : createReadStream(file);
      const chunks = source ? source[Symbol.asyncIterator]() : null;
      let stage = 0;
      // pull() reads the next chunk only when fetch asks for it: the file is never whole in memory.
      return new ReadableStream({
        async pull(controller) {
          if (stage === 0) {
            stage = 1;
            controller.enqueue(new Uint8Array(start));
            if (whole) controller.enqueue(new Uint8Array(whole));
            return;
          }
          if (stage === 1 && chunks) {
            const next = await chunks.next();
            if (!next.done) {
              controller.enqueue(new Uint8Array(next.value));
              return;
            }
          }
          controller.enqueue(new Uint8Array(end));
          controller.close();
        },
        cancel() {
          source?.destroy();
        },
      });
    },
  };
}

// ---- Import and export helpers ----

/** True when --follow stops: the job needs someone, or has no step left. */
function jobStopped(job) {
  return job.kind === "export"
    ? job.state !== "building"
    : ["blocked", "completed", "failed", "canceled"].includes(job.state);
}
const ARCHIVE_PART_BYTES = 5 * 1024 * 1024;

function sha256Of(bytes) {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Sends a whole archive in 5 MiB parts (each with its SHA-256), then completes it with the file's. */
async function uploadWholeArchive(origin, token, id, bytes, key) {
  const part = findCommand("upload-import-part");
  const complete = findCommand("complete-import-archive");
  const parts = Math.max(1, Math.ceil(bytes.length / ARCHIVE_PART_BYTES));
  for (let n = 1; n <= parts; n++) {
    const chunk = bytes.subarray(
      (n - 1) * ARCHIVE_PART_BYTES,
      n * ARCHIVE_PART_BYTES,
    );
    const answer = await request(origin, token, part, {
      path: `/imports/${encodeURIComponent(id)}/archive/parts/${n}`,
      query: { sha256: sha256Of(chunk) },
      bytes: chunk,
      key: `${key}.${n}`,
    });
    if (answer.status >= 400) return answer;
    say(`Part ${n} of ${parts} sent (${chunk.length} bytes)`);
  }
  return await request(origin, token, complete, {
    path: `/imports/${encodeURIComponent(id)}/archive/complete`,
    query: {},
    body: { sha256: sha256Of(bytes), parts },
    key: `${key}.complete`,
  });
}

/** Reads every page of a byte-range command, checks the whole file's SHA-256, then writes it. */
async function readWholeFile(origin, token, command, path, query, out) {
  const chunks = [];
  let page = 1;
  let answer;
  let sha256 = null;
  while (page !== null) {
    answer = await request(origin, token, command, {
      path,
      query: { ...query, page: String(page) },
    });
    if (answer.status >= 400) return answer;
    chunks.push(Buffer.from(answer.body.content_base64, "base64"));
    sha256 = answer.body.sha256;
    page = answer.body.next_page;
  }
  const whole = Buffer.concat(chunks);
  if (sha256Of(whole) !== sha256) {
    throw new Refused(
      `The file read does not match its SHA-256 ${sha256}; nothing was written`,
    );
  }
  writeFileSync(out, whole);
  say(`Wrote ${whole.length} bytes to ${out} (SHA-256 ${sha256})`);
  return {
    status: answer.status,
    body: { file: out, bytes: whole.length, sha256 },
  };
}
