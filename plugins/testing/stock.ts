// The protocol test plugin's media source: a stock catalogue whose files are served from a
// declared delivery origin (one real PNG, one missing file).
import { STOCK_CDN } from "./manifest.ts";

export const bytes = (text: string) =>
  new TextEncoder().encode(text).byteLength;

export const SUNRISE = Deno.readFileSync(
  new URL("../../core/sites/demo_media/sunrise.png", import.meta.url),
);

export function stockItems(origin: string) {
  return [
    {
      id: "sunrise",
      title: "Sunrise",
      mime_type: "image/png",
      width: 64,
      height: 64,
      bytes: SUNRISE.length,
      alt: "The sun over the sea",
      thumbnail_url: `${origin}/files/sunrise.png`,
      download_url: `${origin}/files/sunrise.png`,
      delivery_url: `${STOCK_CDN}/sunrise.png`,
    },
    {
      id: "script",
      title: "Not a picture",
      mime_type: "image/png",
      thumbnail_url: `${origin}/files/script.png`,
      download_url: `${origin}/files/script.png`,
    },
    {
      id: "gone",
      title: "Gone",
      mime_type: "image/png",
      thumbnail_url: `${origin}/files/gone.png`,
      download_url: `${origin}/files/gone.png`,
    },
    {
      id: "huge",
      title: "A header claiming 100,000 × 100,000 pixels",
      mime_type: "image/png",
      thumbnail_url: `${origin}/files/huge.png`,
      download_url: `${origin}/files/huge.png`,
    },
  ];
}
