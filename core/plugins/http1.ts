// A minimal HTTP/1.1 exchange over one connection the caller opened, reading the answer under a byte limit.

/** What went wrong reading an answer. */
export class Http1Error extends Error {
  override name = "Http1Error";
  constructor(
    readonly kind: "too_large" | "malformed" | "closed",
    message: string,
  ) {
    super(message);
  }
}

/** One parsed answer. */
export interface Http1Response {
  status: number;
  headers: Headers;
  body: Uint8Array;
}

/** A request line, headers and body to write. */
export interface Http1Request {
  method: string;
  /** Path and query, e.g. `/svc/activate?x=1`. */
  target: string;
  /** The `Host` header value. */
  host: string;
  headers: Headers;
  body?: Uint8Array;
}

const maxHeaderBytes = 16_384;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Writes `request` with `Connection: close` and reads one answer of at most `maxBodyBytes`. */
export async function exchangeHttp1(
  conn: Deno.Conn,
  request: Http1Request,
  maxBodyBytes: number,
): Promise<Http1Response> {
  const headers = new Headers(request.headers);
  headers.set("host", request.host);
  headers.set("connection", "close");
  headers.set("accept-encoding", "identity");
  if (request.body !== undefined) {
    headers.set("content-length", String(request.body.byteLength));
  }
  let head = `${request.method} ${request.target} HTTP/1.1\r\n`;
  headers.forEach((value, name) => {
    head += `${name}: ${value}\r\n`;
  });
  head += "\r\n";
  await writeAll(conn, encoder.encode(head));
  if (request.body !== undefined && request.body.byteLength > 0) {
    await writeAll(conn, request.body);
  }
  const reader = new ConnReader(conn);
  for (;;) {
    const response = await readHead(reader);
    // Informational answers (100 Continue) precede the real one.
    if (response.status >= 100 && response.status < 200) continue;
    // A redirect is refused whatever it carries: its body is never read.
    if (response.status >= 300 && response.status < 400) {
      return { ...response, body: new Uint8Array(0) };
    }
    const body = await readBody(reader, response, request.method, maxBodyBytes);
    return { status: response.status, headers: response.headers, body };
  }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.byteLength) {
    offset += await conn.write(bytes.subarray(offset));
  }
}

class ConnReader {
  #conn: Deno.Conn;
  #buffer = new Uint8Array(0);
  #eof = false;
  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }
  get buffered(): Uint8Array {
    return this.#buffer;
  }
  get eof(): boolean {
    return this.#eof;
  }
  consume(n: number): Uint8Array {
    const out = this.#buffer.slice(0, n);
    this.#buffer = this.#buffer.slice(n);
    return out;
  }
  /** Reads more bytes into the buffer; false at the end of the stream. */
  async fill(): Promise<boolean> {
    if (this.#eof) return false;
    const chunk = new Uint8Array(16_384);
    let n: number | null;
    try {
      n = await this.#conn.read(chunk);
    } catch (error) {
      // A TLS peer that closes without close_notify ends the stream all the same.
      if (
        error instanceof Deno.errors.UnexpectedEof ||
        (error instanceof Error &&
          /close_notify|unexpected eof/i.test(error.message))
      ) {
        n = null;
      } else {
        throw error;
      }
    }
    if (n === null) {
      this.#eof = true;
      return false;
    }
    const next = new Uint8Array(this.#buffer.byteLength + n);
    next.set(this.#buffer);
    next.set(chunk.subarray(0, n), this.#buffer.byteLength);
    this.#buffer = next;
    return true;
  }
}

function indexOfCrlfCrlf(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.byteLength; i++) {
    if (
      bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 &&
      bytes[i + 3] === 10
    ) return i;
  }
  return -1;
}

async function readHead(
  reader: ConnReader,
): Promise<{ status: number; headers: Headers }> {
  let end = indexOfCrlfCrlf(reader.buffered);
  while (end < 0) {
    if (reader.buffered.byteLength > maxHeaderBytes) {
      throw new Http1Error("malformed", "The answer's headers are too long");
    }
    if (!await reader.fill()) {
      throw new Http1Error(
        reader.buffered.byteLength === 0 ? "closed" : "malformed",
        "The connection closed before a complete answer head",
      );
    }
    end = indexOfCrlfCrlf(reader.buffered);
  }
  if (end > maxHeaderBytes) {
    throw new Http1Error("malformed", "The answer's headers are too long");
  }
  const text = decoder.decode(reader.consume(end + 4)).slice(0, end);
  const [statusLine, ...lines] = text.split("\r\n");
  const match = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(statusLine);
  if (!match) {
    throw new Http1Error("malformed", "The answer is not HTTP/1.1");
  }
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon <= 0 || /\s/.test(line.slice(0, colon))) {
      throw new Http1Error("malformed", "The answer has a malformed header");
    }
    try {
      headers.append(line.slice(0, colon), line.slice(colon + 1).trim());
    } catch {
      throw new Http1Error("malformed", "The answer has a malformed header");
    }
  }
  return { status: Number(match[1]), headers };
}

async function readBody(
  reader: ConnReader,
  head: { status: number; headers: Headers },
  method: string,
  maxBodyBytes: number,
): Promise<Uint8Array> {
  if (
    method === "HEAD" || head.status === 204 || head.status === 304
  ) return new Uint8Array(0);
  const transfer = head.headers.get("transfer-encoding");
  if (transfer !== null) {
    if (transfer.toLowerCase() !== "chunked") {
      throw new Http1Error(
        "malformed",
        "The answer uses an unsupported transfer encoding",
      );
    }
    return await readChunked(reader, maxBodyBytes);
  }
  const lengthHeader = head.headers.get("content-length");
  if (lengthHeader !== null) {
    if (!/^\d{1,15}$/.test(lengthHeader)) {
      throw new Http1Error(
        "malformed",
        "The answer's Content-Length is invalid",
      );
    }
    const length = Number(lengthHeader);
    if (length > maxBodyBytes) {
      throw new Http1Error(
        "too_large",
        `The answer is larger than ${maxBodyBytes} bytes`,
      );
    }
    while (reader.buffered.byteLength < length) {
      if (!await reader.fill()) {
        throw new Http1Error("malformed", "The answer ended before its length");
      }
    }
    return reader.consume(length);
  }
  while (await reader.fill()) {
    if (reader.buffered.byteLength > maxBodyBytes) {
      throw new Http1Error(
        "too_large",
        `The answer is larger than ${maxBodyBytes} bytes`,
      );
    }
  }
  if (reader.buffered.byteLength > maxBodyBytes) {
    throw new Http1Error(
      "too_large",
      `The answer is larger than ${maxBodyBytes} bytes`,
    );
  }
  return reader.consume(reader.buffered.byteLength);
}

async function readLine(reader: ConnReader): Promise<string> {
  for (;;) {
    const bytes = reader.buffered;
    for (let i = 0; i + 1 < bytes.byteLength; i++) {
      if (bytes[i] === 13 && bytes[i + 1] === 10) {
        const line = decoder.decode(reader.consume(i + 2)).slice(0, i);
        return line;
      }
    }
    if (bytes.byteLength > 1024) {
      throw new Http1Error("malformed", "The answer has a malformed chunk");
    }
    if (!await reader.fill()) {
      throw new Http1Error("malformed", "The answer ended inside a chunk");
    }
  }
}

async function readChunked(
  reader: ConnReader,
  maxBodyBytes: number,
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const sizeLine = (await readLine(reader)).split(";")[0].trim();
    if (!/^[0-9a-fA-F]{1,8}$/.test(sizeLine)) {
      throw new Http1Error("malformed", "The answer has a malformed chunk");
    }
    const size = parseInt(sizeLine, 16);
    if (size === 0) break;
    total += size;
    if (total > maxBodyBytes) {
      throw new Http1Error(
        "too_large",
        `The answer is larger than ${maxBodyBytes} bytes`,
      );
    }
    while (reader.buffered.byteLength < size + 2) {
      if (!await reader.fill()) {
        throw new Http1Error("malformed", "The answer ended inside a chunk");
      }
    }
    parts.push(reader.consume(size));
    const crlf = reader.consume(2);
    if (crlf[0] !== 13 || crlf[1] !== 10) {
      throw new Http1Error("malformed", "The answer has a malformed chunk");
    }
  }
  // Trailers end with an empty line; a missing one is tolerated since Connection: close ends the answer.
  for (let i = 0; i < 32; i++) {
    let line: string;
    try {
      line = await readLine(reader);
    } catch {
      break;
    }
    if (line === "") break;
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    body.set(part, offset);
    offset += part.byteLength;
  }
  return body;
}
