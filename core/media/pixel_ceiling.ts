// The pixel ceiling of images, apart from upload detection so that making variants does not load file-type.

/**
 * Most pixels (width × height) an image may have: 100 megapixels, the ceiling image services
 * such as Cloudflare Images put on their input. Decoding one takes about 400 MB (4 bytes a
 * pixel), so a larger header is either a lie (a 1 KB file claiming 100,000 × 100,000) or a
 * decompression bomb; neither is stored, nor its claimed size published.
 */
export const MAX_IMAGE_PIXELS = 100_000_000;
