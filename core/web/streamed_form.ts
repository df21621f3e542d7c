// Reads a multipart/form-data body part by part: text fields whole (they are small), file parts as
// streams the caller consumes while the body is still arriving, so no file is gathered in memory.
import { Busboy, type BusboyInstance } from "@fastify/busboy";
import type { Readable } from "node:stream";

/** One part of a form, in the order the client sent it. */
export type FormPart =
  | { kind: "field"; name: string; value: string }
  | {
    kind: "file";
    name: string;
    /** The name the client gave; for display only. */
    fileName: string;
    /**
     * The part's bytes. Read it to the end or cancel it before asking for the next part: the
     * parser waits for it (that wait is what keeps memory flat).
     */
    stream: ReadableStream<Uint8Array>;
  };

/** Thrown when the body is not a form this reader can split (no boundary, cut short, too many parts). */
export class FormUnreadable extends Error {
  override name = "FormUnreadable";
}

/** Bounds on the parts of a streamed form; files are bounded by their caller while it reads them. */
export interface StreamedFormLimits {
  /** Most bytes of one text field (default 64 KiB). */
  fieldBytes?: number;
  /** Most parts in all (default 100). */
  parts?: number;
}

/**
 * The parts of `body`, a `multipart/form-data` body whose `Content-Type` is `contentType`.
 * Built on @fastify/busboy, which hands each file over as a stream and stops reading the body
 * while that stream is not read (multipart parsers that give whole parts would hold the file).
 * Stopping early (a `break` or a refusal) cancels the rest of the body.
 */
export async function* formParts(
  body: ReadableStream<Uint8Array>,
  contentType: string,
  limits: StreamedFormLimits = {},
): AsyncGenerator<FormPart> {
  let parser: BusboyInstance;
  try {
    parser = new Busboy({
      headers: { "content-type": contentType },
      limits: {
        fieldSize: limits.fieldBytes ?? 64 * 1024,
        parts: limits.parts ?? 100,
      },
      // Text parts arrive byte for byte (latin1 maps each byte to one code unit), so that they
      // are decoded below as strict UTF-8: a lenient decoder would turn bad bytes into U+FFFD.
      defCharset: "latin1",
    });
  } catch (error) {
    throw new FormUnreadable((error as Error).message);
  }
  const queue:
    (FormPart | { kind: "end" } | { kind: "error"; error: unknown })[] = [];
  let wake: (() => void) | null = null;
  const push = (item: (typeof queue)[number]) => {
    queue.push(item);
    wake?.();
    wake = null;
  };
  let openFile: ReadableStreamDefaultController<Uint8Array> | null = null;
  // The part being read, so that stopping early can let the parser skip it instead of waiting.
  let openPart: Readable | null = null;
  let failed: unknown = null;
  const fail = (error: unknown) => {
    if (failed) return;
    failed = error;
    try {
      openFile?.error(error);
    } catch {
      // The caller cancelled the file already.
    }
    push({ kind: "error", error });
  };
  parser.on(
    "field",
    (
      name: string,
      value: string,
      nameTruncated: boolean,
      valueTruncated: boolean,
    ) => {
      if (nameTruncated || valueTruncated) {
        fail(new FormUnreadable(`The form field "${name}" is too long`));
        return;
      }
      const text = strictUtf8(value);
      if (text === null) {
        fail(new FormUnreadable(`The form field "${name}" is not UTF-8 text`));
        return;
      }
      push({ kind: "field", name, value: text });
    },
  );
  parser.on("file", (name: string, file: Readable, fileName: string) => {
    push({ kind: "file", name, fileName, stream: webStreamOf(file) });
  });
  parser.on(
    "partsLimit",
    () => fail(new FormUnreadable("The form has too many parts")),
  );
  parser.on("error", (error: Error) => fail(new FormUnreadable(error.message)));
  parser.on("finish", () => push({ kind: "end" }));

  function webStreamOf(file: Readable): ReadableStream<Uint8Array> {
    let done = false;
    return new ReadableStream<Uint8Array>({
      start(controller) {
        openFile = controller;
        openPart = file;
        // The stream may have been errored from outside (the form failed, or its reader stopped
        // early) while the parser still emits this part's events: those find it closed and are
        // dropped, never thrown from an event handler.
        const settle = (step: () => void) => {
          try {
            step();
          } catch {
            done = true;
          }
        };
        file.on("data", (chunk: Uint8Array) => {
          if (done) return;
          settle(() =>
            controller.enqueue(
              new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength),
            )
          );
          // Pausing the part pauses the parser, which stops taking the body's chunks.
          if (!done && (controller.desiredSize ?? 0) <= 0) file.pause();
        });
        file.on("end", () => {
          if (done) return;
          done = true;
          openFile = null;
          openPart = null;
          settle(() => controller.close());
        });
        file.on("error", (error: Error) => {
          if (done) return;
          done = true;
          settle(() => controller.error(error));
        });
      },
      pull() {
        file.resume();
      },
      cancel() {
        // Let the parser skip the rest of this part.
        done = true;
        openFile = null;
        openPart = null;
        file.resume();
      },
    }, { highWaterMark: 4 });
  }

  const reader = body.getReader();
  const pump = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        await new Promise<void>((resolve, reject) =>
          parser.write(
            value,
            (error?: Error | null) => error ? reject(error) : resolve(),
          )
        );
        if (failed) return;
      }
      parser.end();
    } catch (error) {
      fail(error);
    }
  })();
  try {
    for (;;) {
      while (queue.length === 0) {
        await new Promise<void>((resolve) => wake = resolve);
      }
      const item = queue.shift()!;
      if (item.kind === "end") return;
      if (item.kind === "error") throw item.error;
      yield item;
    }
  } finally {
    if (!failed) {
      failed = new FormUnreadable("The form was not read to its end");
    }
    parser.removeAllListeners("file");
    parser.on("error", () => {});
    try {
      (openFile as ReadableStreamDefaultController<Uint8Array> | null)?.error(
        failed,
      );
    } catch {
      // Closed already.
    }
    (openPart as Readable | null)?.resume();
    await reader.cancel().catch(() => {});
    await pump;
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A part's bytes, read as latin1, decoded as UTF-8; null when they are not UTF-8. */
function strictUtf8(bytesAsLatin1: string): string | null {
  // deno-lint-ignore no-control-regex -- ASCII alone reads the same in both
  if (/^[\x00-\x7f]*$/.test(bytesAsLatin1)) return bytesAsLatin1;
  const bytes = new Uint8Array(bytesAsLatin1.length);
  for (let i = 0; i < bytes.length; i++) bytes[i] = bytesAsLatin1.charCodeAt(i);
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}
