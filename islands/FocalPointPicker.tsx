// This module is browser compatible.
// Picks an image's focal point: number fields that work without script, and a click on the image once hydrated.
import { useEffect, useState } from "preact/hooks";
import { island } from "../core/web/island.ts";

/** Props: the image, its alt text, and the current point as fractions (null: none set). */
export type FocalPointPickerProps = {
  src: string;
  alt: string;
  x: number | null;
  y: number | null;
};

function round(n: number): number {
  return Math.round(Math.min(1, Math.max(0, n)) * 1000) / 1000;
}

export function FocalPointPicker(props: FocalPointPickerProps) {
  const [x, setX] = useState(props.x === null ? "" : String(props.x));
  const [y, setY] = useState(props.y === null ? "" : String(props.y));
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const set = x !== "" && y !== "";
  return (
    <fieldset class="focal-picker">
      <legend>Focal point</legend>
      <div class="focal-frame">
        <img
          src={props.src}
          alt={props.alt}
          onClick={(e) => {
            const box = (e.currentTarget as HTMLImageElement)
              .getBoundingClientRect();
            setX(String(round((e.clientX - box.left) / box.width)));
            setY(String(round((e.clientY - box.top) / box.height)));
          }}
        />
        {set && (
          <span
            class="focal-marker"
            aria-hidden="true"
            style={{ left: `${Number(x) * 100}%`, top: `${Number(y) * 100}%` }}
          />
        )}
      </div>
      <p class="muted">
        {hydrated
          ? "Click the image where it must stay visible when cropped, or type the point."
          : "Type the point as fractions from the top left (0 to 1)."}
      </p>
      <div class="focal-fields">
        <p>
          <label for="focal-x">Across (0–1)</label>
          <input
            id="focal-x"
            name="focal_x"
            type="number"
            min="0"
            max="1"
            step="0.001"
            value={x}
            onInput={(e) => setX((e.target as HTMLInputElement).value)}
          />
        </p>
        <p>
          <label for="focal-y">Down (0–1)</label>
          <input
            id="focal-y"
            name="focal_y"
            type="number"
            min="0"
            max="1"
            step="0.001"
            value={y}
            onInput={(e) => setY((e.target as HTMLInputElement).value)}
          />
        </p>
      </div>
    </fieldset>
  );
}

export default island("FocalPointPicker", FocalPointPicker);
