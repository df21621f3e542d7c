// Draws the demo site's cover images in code (no downloads) and writes them to core/sites/demo_media/.
// Run: deno run -A scripts/gen_demo_images.ts
import { encodePng } from "../core/media/png.ts";

const W = 480;
const H = 270;
type Rgb = [number, number, number];

function mix(a: Rgb, b: Rgb, t: number): Rgb {
  return [0, 1, 2].map((i) => Math.round(a[i] + (b[i] - a[i]) * t)) as Rgb;
}

/** Each image: a sky gradient and one shape, so they read as different pictures in a grid. */
const IMAGES: Record<string, (x: number, y: number) => Rgb> = {
  "sunrise": (x, y) => {
    const sky = mix([255, 183, 94], [120, 60, 140], y / H);
    const d = Math.hypot(x - W * 0.5, y - H * 0.78);
    return d < 60 ? [255, 236, 150] : y > H * 0.78 ? [40, 50, 70] : sky;
  },
  "harbour": (x, y) => {
    const sky = mix([150, 205, 240], [225, 240, 250], y / H);
    const water = mix([30, 90, 140], [10, 50, 90], (y - H * 0.6) / (H * 0.4));
    const sail = x > 200 && x < 280 && y > 70 && y < 160 &&
      (x - 200) < (160 - y);
    return sail ? [250, 250, 245] : y > H * 0.6 ? water : sky;
  },
  "forest": (x, y) => {
    const sky = mix([200, 230, 210], [150, 200, 170], y / H);
    const tree = (cx: number) =>
      y > 60 && y < 230 && Math.abs(x - cx) < (y - 60) * 0.35;
    const trunk = (cx: number) => y >= 230 && Math.abs(x - cx) < 8;
    for (const cx of [90, 200, 330, 420]) {
      if (tree(cx)) return [30 + (cx % 40), 110, 60];
      if (trunk(cx)) return [90, 60, 40];
    }
    return y > 240 ? [70, 120, 60] : sky;
  },
  "grid": (x, y) => {
    const base = mix([35, 40, 60], [60, 70, 110], (x + y) / (W + H));
    const line = x % 40 < 2 || y % 40 < 2;
    return line ? [120, 200, 255] : base;
  },
};

const dir = new URL("../core/sites/demo_media/", import.meta.url);
await Deno.mkdir(dir, { recursive: true });
for (const [name, pixel] of Object.entries(IMAGES)) {
  const bytes = await encodePng(W, H, pixel);
  await Deno.writeFile(new URL(`${name}.png`, dir), bytes);
  console.log(`${name}.png ${bytes.length} bytes`);
}
