// Media storage in an S3-compatible bucket through aws4fetch (SigV4 over fetch, so it runs on Deno Deploy too).
import { AwsClient } from "aws4fetch";
import {
  assertStorageKey,
  type ByteRange,
  type MediaStorage,
  StorageUnavailable,
  type StoredObject,
} from "./storage.ts";

/** Where the bucket is and how to sign for it. */
export interface S3StorageOptions {
  /** `https://s3.eu-central-1.amazonaws.com`, `http://127.0.0.1:9000`, …; path-style addressing. */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Key prefix inside the bucket, e.g. `stave/`; empty by default. */
  prefix?: string;
  /** The fetch to use (tests pass one that fails to simulate an outage). */
  fetch?: typeof fetch;
}

/** Objects in one bucket, addressed path-style: `<endpoint>/<bucket>/<prefix><key>`. */
export class S3Storage implements MediaStorage {
  readonly kind = "s3" as const;
  readonly #client: AwsClient;
  readonly #base: string;
  readonly #prefix: string;
  readonly #fetch: typeof fetch;

  constructor(options: S3StorageOptions) {
    this.#client = new AwsClient({
      accessKeyId: options.accessKeyId,
      secretAccessKey: options.secretAccessKey,
      region: options.region,
      service: "s3",
    });
    this.#base = `${options.endpoint.replace(/\/$/, "")}/${
      encodeURIComponent(options.bucket)
    }`;
    this.#prefix = options.prefix ?? "";
    this.#fetch = options.fetch ?? fetch;
  }

  #url(key: string): string {
    assertStorageKey(key);
    return `${this.#base}/${this.#prefix}${key}`;
  }

  async #send(url: string, init: RequestInit): Promise<Response> {
    const signed = await this.#client.sign(url, init);
    try {
      return await this.#fetch(signed);
    } catch (error) {
      throw new StorageUnavailable(
        `Cannot reach media storage: ${(error as Error).message}`,
      );
    }
  }

  async put(key: string, bytes: Uint8Array, contentType: string) {
    const answer = await this.#send(this.#url(key), {
      method: "PUT",
      body: bytes as Uint8Array<ArrayBuffer>,
      headers: { "content-type": contentType },
    });
    await answer.body?.cancel();
    if (!answer.ok) {
      throw new StorageUnavailable(
        `Cannot store media object: storage answered ${answer.status}`,
      );
    }
  }

  /**
   * A stream that ends within one part goes up in one PUT; a longer one as an S3 multipart
   * upload of {@link S3_PART_BYTES} parts, aborted when the stream errors (a bucket lifecycle
   * rule that aborts incomplete uploads covers a process that dies in between).
   */
  async putStream(
    key: string,
    stream: ReadableStream<Uint8Array>,
    contentType: string,
  ) {
    const url = this.#url(key);
    const parts = new PartReader(stream, S3_PART_BYTES);
    let uploadId: string | null = null;
    try {
      let part = await parts.next();
      if (part.last) {
        await this.put(key, part.bytes, contentType);
        return;
      }
      const created = await this.#send(`${url}?uploads`, {
        method: "POST",
        headers: { "content-type": contentType },
      });
      const createdText = await created.text();
      uploadId = xmlText(createdText, "UploadId");
      if (!created.ok || !uploadId) {
        throw new StorageUnavailable(
          `Cannot start a multipart upload: storage answered ${created.status}`,
        );
      }
      const etags: string[] = [];
      for (let n = 1;; n++) {
        const answer = await this.#send(
          `${url}?partNumber=${n}&uploadId=${encodeURIComponent(uploadId)}`,
          { method: "PUT", body: part.bytes as Uint8Array<ArrayBuffer> },
        );
        await answer.body?.cancel();
        const etag = answer.headers.get("etag");
        if (!answer.ok || !etag) {
          throw new StorageUnavailable(
            `Cannot store a part of a media object: storage answered ${answer.status}`,
          );
        }
        etags.push(etag);
        if (part.last) break;
        part = await parts.next();
        if (part.last && part.bytes.length === 0) break;
      }
      const done = await this.#send(
        `${url}?uploadId=${encodeURIComponent(uploadId)}`,
        {
          method: "POST",
          headers: { "content-type": "application/xml" },
          body: `<CompleteMultipartUpload>${
            etags.map((etag, i) =>
              `<Part><PartNumber>${i + 1}</PartNumber><ETag>${
                xmlEscape(etag)
              }</ETag></Part>`
            ).join("")
          }</CompleteMultipartUpload>`,
        },
      );
      // S3 may answer 200 and still report an error in the body.
      const doneText = await done.text();
      if (!done.ok || doneText.includes("<Error>")) {
        throw new StorageUnavailable(
          `Cannot complete a multipart upload: storage answered ${done.status}`,
        );
      }
      uploadId = null;
    } catch (error) {
      await parts.cancel(error);
      if (uploadId) {
        // Best effort: the lifecycle rule removes what an abort cannot.
        await this.#send(`${url}?uploadId=${encodeURIComponent(uploadId)}`, {
          method: "DELETE",
        }).then((answer) => answer.body?.cancel()).catch(() => {});
      }
      throw error;
    }
  }

  async read(key: string, range?: ByteRange) {
    const headers: Record<string, string> = {};
    if (range) headers.range = `bytes=${range.start}-${range.end}`;
    const answer = await this.#send(this.#url(key), { headers });
    if (answer.status === 404) {
      await answer.body?.cancel();
      return null;
    }
    if (!answer.ok || !answer.body) {
      await answer.body?.cancel();
      throw new StorageUnavailable(
        `Cannot read media object: storage answered ${answer.status}`,
      );
    }
    return answer.body;
  }

  async stat(key: string) {
    const answer = await this.#send(this.#url(key), { method: "HEAD" });
    await answer.body?.cancel();
    if (answer.status === 404) return null;
    if (!answer.ok) {
      throw new StorageUnavailable(
        `Cannot read media object: storage answered ${answer.status}`,
      );
    }
    return { size: Number(answer.headers.get("content-length") ?? 0) };
  }

  async delete(key: string) {
    const answer = await this.#send(this.#url(key), { method: "DELETE" });
    await answer.body?.cancel();
    if (!answer.ok && answer.status !== 404) {
      throw new StorageUnavailable(
        `Cannot delete media object: storage answered ${answer.status}`,
      );
    }
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    let token: string | null = null;
    do {
      const url = new URL(this.#base);
      url.searchParams.set("list-type", "2");
      url.searchParams.set("prefix", this.#prefix + prefix);
      if (token) url.searchParams.set("continuation-token", token);
      const answer = await this.#send(url.toString(), {});
      const text = await answer.text();
      if (!answer.ok) {
        throw new StorageUnavailable(
          `Cannot list media objects: storage answered ${answer.status}`,
        );
      }
      for (const match of text.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
        const key = xmlText(match[1], "Key");
        if (key === null || !key.startsWith(this.#prefix)) continue;
        yield {
          key: key.slice(this.#prefix.length),
          size: Number(xmlText(match[1], "Size") ?? 0),
          lastModified: new Date(xmlText(match[1], "LastModified") ?? 0),
        };
      }
      token = xmlText(text, "IsTruncated") === "true"
        ? xmlText(text, "NextContinuationToken")
        : null;
    } while (token);
  }
}

/** Size of one part of a multipart upload: S3 wants at least 5 MiB for every part but the last. */
export const S3_PART_BYTES = 8 * 1024 * 1024;

/** Cuts a stream into parts of at least `size` bytes (the last may be smaller). */
class PartReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #size: number;
  #ended = false;

  constructor(stream: ReadableStream<Uint8Array>, size: number) {
    this.#reader = stream.getReader();
    this.#size = size;
  }

  async next(): Promise<{ bytes: Uint8Array; last: boolean }> {
    const chunks: Uint8Array[] = [];
    let length = 0;
    while (!this.#ended && length < this.#size) {
      const { done, value } = await this.#reader.read();
      if (done) this.#ended = true;
      else {
        chunks.push(value);
        length += value.length;
      }
    }
    const bytes = new Uint8Array(length);
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    return { bytes, last: this.#ended };
  }

  async cancel(reason: unknown) {
    if (!this.#ended) await this.#reader.cancel(reason).catch(() => {});
  }
}

function xmlEscape(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

function xmlText(xml: string, tag: string): string | null {
  const match = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml);
  if (!match) return null;
  return match[1].replaceAll("&quot;", '"').replaceAll("&apos;", "'")
    .replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
}
