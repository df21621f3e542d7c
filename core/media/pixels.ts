// Pixel operations the WebAssembly codecs leave to their caller: EXIF orientation, crop, padding, flattening, fitting.

/** Decoded RGBA pixels, 4 bytes a pixel, rows top to bottom. */
export interface Pixels {
  width: number;
  height: number;
  data: Uint8ClampedArray<ArrayBuffer>;
}

function words(image: Pixels): Uint32Array {
  const { data } = image;
  const aligned = data.byteOffset % 4 === 0 ? data : data.slice();
  return new Uint32Array(
    aligned.buffer,
    aligned.byteOffset,
    image.width * image.height,
  );
}

function fromWords(
  width: number,
  height: number,
  out: Uint32Array<ArrayBuffer>,
): Pixels {
  return { width, height, data: new Uint8ClampedArray(out.buffer) };
}

/**
 * The image upright: EXIF orientation 2 to 8 (mirrored, turned or both) undone, as sharp's
 * `rotate()` without an angle does; 1 (or anything else) is the image as stored.
 */
export function orient(image: Pixels, orientation: number): Pixels {
  if (orientation < 2 || orientation > 8) return image;
  const { width: w, height: h } = image;
  const src = words(image);
  const turned = orientation >= 5;
  const ow = turned ? h : w;
  const oh = turned ? w : h;
  const out = new Uint32Array(ow * oh);
  // For each output pixel, where it comes from in the stored image.
  const from: (x: number, y: number) => number = {
    2: (x: number, y: number) => y * w + (w - 1 - x),
    3: (x: number, y: number) => (h - 1 - y) * w + (w - 1 - x),
    4: (x: number, y: number) => (h - 1 - y) * w + x,
    5: (x: number, y: number) => x * w + y,
    6: (x: number, y: number) => (h - 1 - x) * w + y,
    7: (x: number, y: number) => (h - 1 - x) * w + (w - 1 - y),
    8: (x: number, y: number) => x * w + (w - 1 - y),
  }[orientation as 2 | 3 | 4 | 5 | 6 | 7 | 8];
  for (let y = 0; y < oh; y++) {
    for (let x = 0; x < ow; x++) out[y * ow + x] = src[from(x, y)];
  }
  return fromWords(ow, oh, out);
}

/** The pixels inside `area`. */
export function crop(
  image: Pixels,
  area: { left: number; top: number; width: number; height: number },
): Pixels {
  const src = words(image);
  const out = new Uint32Array(area.width * area.height);
  for (let y = 0; y < area.height; y++) {
    const start = (area.top + y) * image.width + area.left;
    out.set(src.subarray(start, start + area.width), y * area.width);
  }
  return fromWords(area.width, area.height, out);
}

/** The image centred in a `width` × `height` frame filled with `background` (RGBA). */
export function pad(
  image: Pixels,
  frame: {
    width: number;
    height: number;
    background: [number, number, number, number];
  },
): Pixels {
  if (frame.width === image.width && frame.height === image.height) {
    return image;
  }
  const fill = new Uint8ClampedArray(4);
  fill.set(frame.background);
  const out = new Uint32Array(frame.width * frame.height);
  out.fill(new Uint32Array(fill.buffer)[0]);
  const src = words(image);
  const left = Math.floor((frame.width - image.width) / 2);
  const top = Math.floor((frame.height - image.height) / 2);
  for (let y = 0; y < image.height; y++) {
    out.set(
      src.subarray(y * image.width, (y + 1) * image.width),
      (top + y) * frame.width + left,
    );
  }
  return fromWords(frame.width, frame.height, out);
}

/** The image over white, fully opaque (JPEG has no transparency). */
export function flatten(image: Pixels): Pixels {
  const data = new Uint8ClampedArray(image.data);
  for (let i = 0; i < data.length; i += 4) {
    const a = data[i + 3] / 255;
    if (a === 1) continue;
    data[i] = data[i] * a + 255 * (1 - a);
    data[i + 1] = data[i + 1] * a + 255 * (1 - a);
    data[i + 2] = data[i + 2] * a + 255 * (1 - a);
    data[i + 3] = 255;
  }
  return { width: image.width, height: image.height, data };
}

/**
 * The size of the whole image inside the asked box, never enlarged (sharp's `inside` with
 * `withoutEnlargement`); a side not asked does not bound it.
 */
export function fitBox(
  image: { width: number; height: number },
  box: { width: number | null; height: number | null },
): { width: number; height: number } {
  const scale = Math.min(
    1,
    box.width === null ? Infinity : box.width / image.width,
    box.height === null ? Infinity : box.height / image.height,
  );
  return {
    width: Math.max(1, Math.round(image.width * scale)),
    height: Math.max(1, Math.round(image.height * scale)),
  };
}
