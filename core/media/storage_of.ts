// Chooses the media storage a process uses from its settings: S3-compatible when configured, else files.
import type { Config } from "../config.ts";
import type { Services } from "../services.ts";
import { FileStorage } from "./file_storage.ts";
import { S3Storage } from "./s3_storage.ts";
import type { MediaContext } from "./items.ts";
import type { MediaStorage } from "./storage.ts";

/** The storage `config` names: the bucket of `MEDIA_S3_*`, else files under `DATA_DIR/media`. */
export function mediaStorageFor(config: Config): MediaStorage {
  if (config.mediaS3) return new S3Storage(config.mediaS3);
  return new FileStorage(`${config.dataDir}/media`);
}

/** The process's storage: `services.media` when set (tests set it), else made from the settings once. */
export function mediaStorageOf(services: Services): MediaStorage {
  if (!services.media) services.media = mediaStorageFor(services.config);
  return services.media;
}

/**
 * The library of `siteId` with no idempotency key yet: an admin page's own writes, and a
 * Management API upload while its file streams in (the key is checked once the digest is known).
 */
export function keylessMediaContext(
  services: Services,
  siteId: string,
): MediaContext {
  return {
    db: services.db,
    storage: mediaStorageOf(services),
    imageLibrary: services.config.mediaImageLibrary,
    clock: services.clock,
    siteId,
    publicUrl: services.config.publicUrl,
    keyDigest: null,
  };
}
