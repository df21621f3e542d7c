// A real S3-protocol server (npm s3rver) on 127.0.0.1 with one bucket, for the S3 media backend's tests.
import S3rver from "s3rver";
import { S3Storage } from "../../core/media/s3_storage.ts";

/** A running S3 server, its bucket as a storage, and its settings. */
export interface TestS3 {
  endpoint: string;
  bucket: string;
  storage: S3Storage;
  close(): Promise<void>;
}

/** Starts s3rver on a free port of 127.0.0.1 with bucket `media-test` in a temporary directory. */
export async function startTestS3(): Promise<TestS3> {
  const directory = await Deno.makeTempDir({ prefix: "stave-s3-" });
  const server = new S3rver({
    port: 0,
    address: "127.0.0.1",
    directory,
    silent: true,
    configureBuckets: [{ name: "media-test", configs: [] }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket: "media-test",
    // s3rver's fixed credentials; nothing secret.
    storage: new S3Storage({
      endpoint,
      bucket: "media-test",
      region: "us-east-1",
      accessKeyId: "S3RVER",
      secretAccessKey: "S3RVER",
    }),
    async close() {
      await server.close();
      await Deno.remove(directory, { recursive: true }).catch(() => {});
    },
  };
}

/** Every key in `storage`, for asserting that nothing was left behind. */
export async function storedKeys(
  storage: { list(prefix: string): AsyncIterable<{ key: string }> },
): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of storage.list("")) keys.push(object.key);
  return keys;
}
