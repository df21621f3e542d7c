// Pipelined named statements on PostgreSQL: a few connections of their own, each carrying many
// statements in flight, and every statement queued in one turn of the event loop sent in one
// socket write. `pg` sends a statement only when the connection's previous one has answered,
// one write each; on a machine of two cores that also runs PostgreSQL, that write (the kernel
// delivering it on the loopback and waking the server) was a third of a public read's CPU
// (docs/benchmarks.md). The connections are opened and authenticated by `pg` itself (every
// method it knows), then handed over: from there this module speaks the extended protocol
// (Bind, Describe, Execute, Sync per statement, Parse once per connection and name) and builds
// rows as `pg`'s Result does (its type parsers, its key order), with errors as `pg` reports them.
import { Buffer } from "node:buffer";
import { EventEmitter } from "node:events";
import { setImmediate } from "node:timers";
import pg from "pg";
import { serialize } from "pg-protocol";
import { Parser } from "pg-protocol/dist/parser.js";
import utils from "pg/lib/utils.js";

/** What the server sends that a pipelined statement reads. */
interface Message {
  name: string;
  fields?: unknown[];
  text?: string;
}

/** A result column as the server describes it (what a row is built from). */
interface FieldDescription {
  name: string;
  dataTypeID: number;
}

/**
 * How a named statement's rows are built, made once from its row description: `pg`'s Result
 * makes the same parsers and empty row on every run (`addFields`, 2% of a list read's CPU).
 */
interface RowShape {
  names: string[];
  parsers: ((text: string) => unknown)[];
  /** Every column as a key set to null, in column order: each row starts as a copy. */
  empty: Record<string, null>;
}

/** The shape `pg`'s Result gives rows of columns `fields` (text format, global type parsers). */
function rowShape(fields: FieldDescription[]): RowShape {
  const empty = Object.create(null) as Record<string, null>;
  for (const field of fields) empty[field.name] = null;
  return {
    names: fields.map((f) => f.name),
    parsers: fields.map((f) =>
      pg.types.getTypeParser(f.dataTypeID, "text") as (text: string) => unknown
    ),
    empty: { ...empty },
  };
}

/** A row as `pg`'s Result builds it: later columns of a repeated name win, in its first place. */
function buildRow(shape: RowShape, texts: (string | null)[]): unknown {
  const row: Record<string, unknown> = { ...shape.empty };
  const { names, parsers } = shape;
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i];
    row[names[i]] = text === null ? null : parsers[i](text);
  }
  return row;
}

/** A statement sent and waiting for its ReadyForQuery. */
interface InFlight {
  name: string;
  /** The statement was parsed in this group: forgotten again when the group fails. */
  parsed: boolean;
  /** Known once the statement was described on this connection. */
  shape: RowShape | null;
  rows: unknown[];
  error: Error | null;
  resolve(rows: unknown[]): void;
  reject(error: Error): void;
}

/** pg's message for a socket that ended: core code tells lost connections by it (pg_faults.ts). */
const TERMINATED = "Connection terminated unexpectedly";
const SYNC = serialize.sync();
/** Statements in flight on one connection before the next connection is used. */
const PIPE_DEPTH = 8;

/**
 * The socket `pg` connects and authenticates through, over Deno's own TCP (or Unix) connection;
 * once handed over, what arrives goes to the pipeline instead of `pg`.
 */
class HandedSocket extends EventEmitter {
  writable = false;
  #conn: Deno.Conn | null = null;
  #receiver: ((chunk: Buffer) => void) | null = null;
  #onEnd: ((error: Error | null) => void) | null = null;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #flushQueued = false;
  #writing: Promise<void> = Promise.resolve();
  #closed = false;
  /** Socket writes made: statements queued in one turn share one. */
  writes = 0;

  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }

  connect(portOrPath: number | string, host?: string): this {
    const opening = typeof portOrPath === "string"
      ? Deno.connect({ transport: "unix", path: portOrPath })
      : Deno.connect({ hostname: host ?? "localhost", port: portOrPath });
    opening.then((conn) => {
      this.#conn = conn;
      if ("setNoDelay" in conn) (conn as Deno.TcpConn).setNoDelay(true);
      this.writable = true;
      this.emit("connect");
      this.#flush();
      this.#read(conn);
    }, (error) => this.emit("error", error));
    return this;
  }

  /** From now on chunks go to `receiver`, and the end of the socket to `onEnd`, not to `pg`. */
  handOver(
    receiver: (chunk: Buffer) => void,
    onEnd: (error: Error | null) => void,
  ): void {
    this.#receiver = receiver;
    this.#onEnd = onEnd;
    this.removeAllListeners();
  }

  async #read(conn: Deno.Conn): Promise<void> {
    const buffer = new Uint8Array(64 * 1024);
    let failure: Error | null = null;
    try {
      while (true) {
        const n = await conn.read(buffer);
        if (n === null) break;
        // Copied (natively, by `slice`; `Buffer.from` of a Uint8Array copies byte by byte in
        // JavaScript): the parser may keep a partial message while the buffer is read into again.
        const copy = buffer.slice(0, n);
        const chunk = Buffer.from(copy.buffer, 0, n);
        if (this.#receiver) this.#receiver(chunk);
        else this.emit("data", chunk);
      }
    } catch (error) {
      if (!this.#closed) failure = error as Error;
    }
    this.writable = false;
    this.#closed = true;
    try {
      conn.close();
    } catch { /* already closed */ }
    if (this.#onEnd) this.#onEnd(failure);
    else {
      if (failure) this.emit("error", failure);
      this.emit("close");
    }
  }

  /**
   * Queues `data`; everything queued before the event loop's next turn goes out in one write.
   * Flushed after the turn's microtasks, not in one of them: statements of requests resumed by
   * the same answers are asked for over many microtasks (in-process, flushing in a microtask
   * sent 5 to 6 statements a write, after the turn 7).
   */
  write(data: Uint8Array | string, ...rest: unknown[]): boolean {
    const bytes = typeof data === "string" ? Buffer.from(data) : data;
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.length;
    const callback = rest.find((r) => typeof r === "function") as
      | (() => void)
      | undefined;
    if (callback) queueMicrotask(callback);
    if (!this.#flushQueued) {
      this.#flushQueued = true;
      setImmediate(() => {
        this.#flushQueued = false;
        this.#flush();
      });
    }
    return true;
  }

  #flush(): void {
    const conn = this.#conn;
    if (!conn || this.#pending.length === 0 || this.#closed) return;
    const out = this.#pending.length === 1
      ? this.#pending[0]
      : Buffer.concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    this.writes++;
    this.#writing = this.#writing.then(async () => {
      let written = 0;
      while (written < out.length) {
        written += await conn.write(out.subarray(written));
      }
    }).catch(() => {
      this.end();
    });
  }

  end(): this {
    if (this.#closed) return this;
    this.#flush();
    this.#closed = true;
    this.#writing.finally(() => {
      try {
        this.#conn?.close();
      } catch { /* already closed */ }
    });
    return this;
  }

  destroy(): this {
    this.#closed = true;
    try {
      this.#conn?.close();
    } catch { /* already closed */ }
    return this;
  }
}

/** A row's fields as the server sent them: text, or null for SQL null. */
interface DataRow {
  name: "dataRow";
  fields: (string | null)[];
}

/**
 * pg-protocol's parser as {@link RowParser} extends it: `handlePacket` (private in its types) is
 * the method `parse` calls for each whole message.
 */
type ProtocolParser = new () => {
  parse(buffer: Buffer, callback: (message: Message) => void): void;
  handlePacket(
    offset: number,
    code: number,
    length: number,
    bytes: Buffer,
  ): Message;
};

/** Rows up to this many bytes are decoded in one piece (see {@link RowParser}). */
const ROW_TEXT_MAX = 4096;
const DATA_ROW = 0x44;

/**
 * pg-protocol's parser, reading data rows in one piece: a row's bytes are decoded once, as
 * latin1 (one character per byte, so byte offsets are character offsets), and each field is a
 * substring of that text when its bytes are ASCII, where latin1 and UTF-8 agree. A field with
 * other bytes is decoded as UTF-8 on its own. pg-protocol decodes every field separately, each
 * through a Buffer view and a native call: for a list page of 20 rows of 7 fields that was about
 * 4% of a public read's CPU (docs/benchmarks.md). Every other message is pg-protocol's own.
 */
class RowParser extends (Parser as unknown as ProtocolParser) {
  override handlePacket(
    offset: number,
    code: number,
    length: number,
    bytes: Buffer,
  ): Message {
    // `length` counts itself (4 bytes), not the code.
    if (code !== DATA_ROW || length - 4 > ROW_TEXT_MAX) {
      return super.handlePacket(offset, code, length, bytes);
    }
    return dataRow(bytes, offset, offset + length - 4);
  }
}

const utf8 = new TextDecoder();

/** The data row whose payload (field count, then each field's length and bytes) is `start..end`. */
function dataRow(bytes: Buffer, start: number, end: number): DataRow {
  const text = bytes.toString("latin1", start, end);
  const count = (bytes[start] << 8) | bytes[start + 1];
  const fields = new Array<string | null>(count);
  let at = start + 2;
  for (let i = 0; i < count; i++) {
    const length = bytes.readInt32BE(at);
    at += 4;
    if (length < 0) {
      fields[i] = null;
      continue;
    }
    const stop = at + length;
    let ascii = true;
    for (let b = at; b < stop; b++) {
      if (bytes[b] > 0x7f) {
        ascii = false;
        break;
      }
    }
    fields[i] = ascii
      ? text.substring(at - start, stop - start)
      : utf8.decode(bytes.subarray(at, stop));
    at = stop;
  }
  return { name: "dataRow", fields };
}

/** One connection carrying statements in flight, answered in the order they were sent. */
class PipelinedConnection {
  readonly ready: Promise<void>;
  /** Statements sent and not yet answered, oldest first. */
  readonly inFlight: InFlight[] = [];
  /** Statements given to this connection and waiting for it to open. */
  waiting = 0;
  dead = false;
  /** Asked to end: takes no new statement. */
  closing = false;
  #ended = Promise.withResolvers<void>();
  #socket = new HandedSocket();
  /** Statement names parsed (or being parsed) on this connection, with their text. */
  #parsed = new Map<string, string>();
  /**
   * The result columns each named statement answered with, once described. A named statement's
   * columns cannot change (the server refuses to run it if they would), so later runs skip the
   * Describe and the server's description of the row.
   */
  #described = new Map<string, RowShape>();
  #onDead: () => void;

  constructor(options: pg.ClientConfig, onDead: () => void) {
    this.#onDead = onDead;
    const socket = this.#socket;
    // `pg` opens and authenticates the connection (and sets it to one generic plan per
    // statement, as the pool's connections running named statements are); then hands it over.
    const client = new pg.Client({ ...options, stream: () => socket as never });
    // While pg holds the connection, a server that ends the session between queries (an
    // administrator's `pg_terminate_backend`, a restart) reaches pg as an error event with no
    // query to fail: pg emits it on the client, and an emitter nobody listens to throws it,
    // here out of the socket's read loop, which took the process down.
    client.on("error", (error: Error) => this.#die(error));
    this.ready = (async () => {
      try {
        await client.connect();
        await client.query("set plan_cache_mode = force_generic_plan");
      } catch (error) {
        this.#die(null);
        socket.destroy();
        throw error;
      }
      socket.handOver(
        (chunk) => this.#parser.parse(chunk, this.#onMessage),
        (error) => this.#die(error),
      );
    })();
    // A caller awaits `ready`; a failure nobody waited for must not go unhandled.
    this.ready.catch(() => {});
  }

  #parser = new RowParser();
  #onMessage = (message: Message) => this.#receive(message);

  /** Sends one statement; resolves with its rows once the server answered it. */
  run(name: string, text: string, values: unknown[]): Promise<unknown[]> {
    if (this.dead || this.closing) {
      return Promise.reject(new Error(TERMINATED));
    }
    const previous = this.#parsed.get(name);
    if (previous !== undefined && previous !== text) {
      return Promise.reject(
        new Error(
          `Prepared statements must be unique - '${name}' was used for a different statement`,
        ),
      );
    }
    let bind: Buffer;
    try {
      bind = serialize.bind({
        statement: name,
        values,
        valueMapper: utils.prepareValue,
      });
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      const parsed = previous === undefined;
      if (parsed) {
        this.#parsed.set(name, text);
        this.#socket.write(serialize.parse({ name, text, types: [] }));
      }
      this.#socket.write(bind);
      const shape = this.#described.get(name) ?? null;
      if (!shape) {
        this.#socket.write(serialize.describe({ type: "P", name: "" }));
      }
      this.#socket.write(serialize.execute({ portal: "", rows: 0 }));
      this.#socket.write(SYNC);
      this.inFlight.push({
        name,
        parsed,
        shape,
        rows: [],
        error: null,
        resolve,
        reject,
      });
    });
  }

  #receive(message: Message): void {
    const current = this.inFlight[0];
    if (!current) return;
    switch (message.name) {
      case "rowDescription": {
        const shape = rowShape(message.fields as FieldDescription[]);
        this.#described.set(current.name, shape);
        current.shape = shape;
        break;
      }
      case "dataRow":
        current.rows.push(
          buildRow(current.shape!, message.fields as (string | null)[]),
        );
        break;
      case "error":
        current.error = message as unknown as Error;
        break;
      case "readyForQuery": {
        this.inFlight.shift();
        if (current.error) {
          // A failed Parse leaves no statement behind: the next run parses it again.
          if (current.parsed) {
            this.#parsed.delete(current.name);
            this.#described.delete(current.name);
          }
          current.reject(current.error);
        } else current.resolve(current.rows);
        break;
      }
        // Bind, parse and command completions, notices, parameter changes: nothing to do.
    }
  }

  #die(error: Error | null): void {
    if (this.dead) return;
    this.dead = true;
    this.#onDead();
    const failure = new Error(TERMINATED, error ? { cause: error } : undefined);
    for (const waiting of this.inFlight.splice(0)) waiting.reject(failure);
    this.#ended.resolve();
  }

  /** Socket writes this connection made. */
  get writes(): number {
    return this.#socket.writes;
  }

  /**
   * Asks the server to end the session once it has answered what was sent: it answers the
   * statements in flight, then closes the socket. Resolves once the socket is closed.
   */
  async close(): Promise<void> {
    this.closing = true;
    try {
      await this.ready;
    } catch {
      return;
    }
    this.#socket.write(serialize.end());
    await this.#ended.promise;
  }
}

/**
 * Named statements of one database over up to `size` pipelined connections, each statement on
 * the first connection with fewer than {@link PIPE_DEPTH} in flight (the least busy once all are
 * that busy); a connection the server drops fails the statements it carried (as `pg` does: the
 * request answers 503) and is replaced on the next statement.
 */
export class StatementPipeline {
  #connections: PipelinedConnection[] = [];
  #closed = false;

  constructor(
    private readonly options: pg.ClientConfig,
    private readonly size: number,
  ) {}

  /** Runs the named statement `name` of `text` with `values`; its rows as `pg` builds them. */
  async run(name: string, text: string, values: unknown[]): Promise<unknown[]> {
    if (this.#closed) {
      throw new Error("Cannot run a statement: the database is closed");
    }
    const connection = this.#pick();
    connection.waiting++;
    try {
      await connection.ready;
    } finally {
      connection.waiting--;
    }
    return await connection.run(name, text, values);
  }

  #pick(): PipelinedConnection {
    // The first connection with room: statements asked for together share its writes (most
    // of a statement's cost on a small machine), and another connection opens only when every
    // one has a full pipe.
    let least: PipelinedConnection | undefined;
    let leastLoad = Infinity;
    for (const connection of this.#connections) {
      const load = connection.inFlight.length + connection.waiting;
      if (load < PIPE_DEPTH) return connection;
      if (load < leastLoad) [least, leastLoad] = [connection, load];
    }
    if (least && this.#connections.length >= this.size) return least;
    const opened: PipelinedConnection = new PipelinedConnection(
      this.options,
      () => {
        this.#connections = this.#connections.filter((c) => c !== opened);
      },
    );
    this.#connections.push(opened);
    return opened;
  }

  /** Connections open (or opening), and the socket writes they made. */
  stats(): { connections: number; writes: number } {
    return {
      connections: this.#connections.length,
      writes: this.#connections.reduce((sum, c) => sum + c.writes, 0),
    };
  }

  /** Ends every connection; statements in flight still get their answers. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(
      this.#connections.splice(0).map((connection) => connection.close()),
    );
  }
}

/**
 * A pipeline of `size` connections for `pool`'s database, or null: none asked for (0), or where
 * it cannot speak for `pg` (TLS connections, as the hand-over speaks plain sockets, and pools
 * built with a stream of their own).
 */
export function pipelineFor(
  pool: pg.Pool,
  size: number,
): StatementPipeline | null {
  const options = pool.options as pg.PoolConfig & { stream?: unknown };
  if (size <= 0 || options.stream || options.ssl) return null;
  const parameters = new (pg as unknown as {
    Client: new (config: pg.ClientConfig) => { ssl?: unknown };
  }).Client(options);
  if (parameters.ssl) return null;
  return new StatementPipeline(options, size);
}
