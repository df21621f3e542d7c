// Platform media-asset component: documents as a download link, audio and video with the
// browser's own controls, images through the image component.
import type { MediaObject } from "../../mod.ts";
import { Image } from "./image.tsx";

function size(bytes: number | undefined): string {
  if (!bytes) return "";
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** One media object drawn for its kind. */
export function MediaAsset(
  { media, origins, label }: {
    media: MediaObject;
    origins: readonly string[];
    label?: string;
  },
) {
  const name = label ?? media.alt ?? media.file_name ?? "File";
  switch (media.kind) {
    case "image":
      return (
        <Image
          source={media}
          origins={origins}
          sizes="(min-width: 60rem) 48rem, 100vw"
        />
      );
    case "video":
      return (
        <video
          class="asset"
          controls
          preload="metadata"
          src={media.url}
          aria-label={name}
        >
          <a href={media.url}>{name}</a>
        </video>
      );
    case "audio":
      return (
        <audio
          class="asset"
          controls
          preload="metadata"
          src={media.url}
          aria-label={name}
        >
          <a href={media.url}>{name}</a>
        </audio>
      );
    default:
      return (
        <a class="asset-file" href={media.url} download={media.file_name}>
          <span aria-hidden="true" class="asset-icon">↓</span>
          <span>
            {name}
            <small>
              {[
                media.mime_type?.split("/")[1]?.toUpperCase(),
                size(media.byte_length),
              ].filter(Boolean).join(" · ")}
            </small>
          </span>
        </a>
      );
  }
}
