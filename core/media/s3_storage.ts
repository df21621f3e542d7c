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

function xmlText(xml: string, tag: string): string | null {
  const match = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml);
  if (!match) return null;
  return match[1].replaceAll("&quot;", '"').replaceAll("&apos;", "'")
    .replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
}
