// Visitor form submissions: checking, storing, reading and retention (docs/forms.md).
import type { Services } from "../services.ts";
import {
  type AttachmentStore,
  folderAttachmentStore,
  storageAttachmentStore,
} from "./attachment_store.ts";
import { mediaStorageOf } from "../media/storage_of.ts";

export * from "./attachment_store.ts";
export * from "./submit.ts";
export * from "./read.ts";

/**
 * The attachment store of this service: beside the media in their bucket when media go to
 * S3-compatible storage (always on Deno Deploy), else `DATA_DIR/form-attachments`.
 */
export function formAttachmentStore(services: Services): AttachmentStore {
  const media = mediaStorageOf(services);
  if (media.kind === "s3") return storageAttachmentStore(media);
  return folderAttachmentStore(`${services.config.dataDir}/form-attachments`);
}
