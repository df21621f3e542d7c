// Visitor form submissions: checking, storing, reading and retention (docs/forms.md).
import type { Services } from "../services.ts";
import {
  type AttachmentStore,
  folderAttachmentStore,
} from "./attachment_store.ts";

export * from "./attachment_store.ts";
export * from "./submit.ts";
export * from "./read.ts";

/** The attachment store of this service: `DATA_DIR/form-attachments`. */
export function formAttachmentStore(services: Services): AttachmentStore {
  return folderAttachmentStore(`${services.config.dataDir}/form-attachments`);
}
