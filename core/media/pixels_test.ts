import { deepEqual } from "node:assert/strict";
import { crop, fitBox, flatten, orient, pad, type Pixels } from "./pixels.ts";

/** A `width` × `height` image whose red channel names each pixel (a, b, c… row by row). */
function labelled(width: number, height: number): Pixels {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    data[i * 4] = "a".charCodeAt(0) + i;
    data[i * 4 + 3] = 255;
  }
  return { width, height, data };
}

function rows(image: Pixels): string[] {
  const out: string[] = [];
  for (let y = 0; y < image.height; y++) {
    let row = "";
    for (let x = 0; x < image.width; x++) {
      row += String.fromCharCode(image.data[(y * image.width + x) * 4]);
    }
    out.push(row);
  }
  return out;
}

Deno.test("orient() turns each EXIF orientation upright, as sharp's rotate() does", () => {
  // Stored:  abc / def
  const expected: Record<number, string[]> = {
    1: ["abc", "def"],
    2: ["cba", "fed"],
    3: ["fed", "cba"],
    4: ["def", "abc"],
    5: ["ad", "be", "cf"],
    6: ["da", "eb", "fc"],
    7: ["fc", "eb", "da"],
    8: ["cf", "be", "ad"],
  };
  for (const [orientation, want] of Object.entries(expected)) {
    deepEqual(rows(orient(labelled(3, 2), Number(orientation))), want);
  }
});

Deno.test("crop(), pad(), flatten() and fitBox() keep the pixels where a variant needs them", () => {
  deepEqual(
    rows(crop(labelled(3, 2), { left: 1, top: 0, width: 2, height: 2 })),
    ["bc", "ef"],
  );
  const padded = pad(labelled(2, 1), {
    width: 4,
    height: 3,
    background: [0x2e, 0, 0, 0],
  });
  deepEqual(rows(padded), ["....", ".ab.", "...."]);
  const half = {
    width: 1,
    height: 1,
    data: new Uint8ClampedArray([0, 0, 0, 127]),
  };
  deepEqual(Array.from(flatten(half).data), [128, 128, 128, 255]);
  // Never enlarged; a side not asked does not bound the size.
  deepEqual(fitBox({ width: 1000, height: 500 }, { width: 333, height: 333 }), {
    width: 333,
    height: 167,
  });
  deepEqual(
    fitBox({ width: 1000, height: 500 }, { width: 2000, height: null }),
    {
      width: 1000,
      height: 500,
    },
  );
});
