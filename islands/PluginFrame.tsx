// This module is browser compatible.
// A plugin card's reviewed frame (spec 1 part 1; PEXT-003): the plugin's page on its own origin in
// a sandbox without same-origin rights, loaded with no referrer, and bound to this page by one
// MessageChannel that carries only what the card is about (installation, card, entry language).
// The frame never gets the admin session or a token. Without script the card's button remains.
import { useEffect, useRef, useState } from "preact/hooks";
import { island } from "../core/web/island.ts";

/** What the frame is told when it connects; nothing secret. */
export interface FrameContext extends Record<string, unknown> {
  installation_id: string;
  card_id: string;
  instance_id: string;
  locale: string;
}

/** Props of the frame island (plain JSON). */
export interface PluginFrameProps extends Record<string, unknown> {
  src: string;
  /** The card's declared height in CSS pixels (80 to 800); the frame may ask for another. */
  height: number;
  title: string;
  context: FrameContext;
}

const MIN_HEIGHT = 80;
const MAX_HEIGHT = 800;

function PluginFrame(props: PluginFrameProps) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [height, setHeight] = useState(props.height);
  const [notice, setNotice] = useState("");
  // The address is set only once this island runs, so its load is always seen and answered.
  const [src, setSrc] = useState<string | undefined>(undefined);
  useEffect(() => {
    const element = frame.current;
    if (!element) return;
    let port: MessagePort | null = null;
    const connect = () => {
      port?.close();
      const channel = new MessageChannel();
      port = channel.port1;
      port.onmessage = (event: MessageEvent) => {
        const message = event.data as { type?: unknown; [k: string]: unknown };
        if (message?.type === "resize" && typeof message.height === "number") {
          setHeight(
            Math.round(
              Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, message.height)),
            ),
          );
        } else if (
          message?.type === "notice" && typeof message.text === "string"
        ) {
          setNotice(message.text.slice(0, 200));
        }
      };
      // A sandboxed frame has an opaque origin, so "*" is the only target that reaches it;
      // the message holds the card's context and the port, never a secret.
      element.contentWindow?.postMessage(
        { type: "stave:connect", version: 1, context: props.context },
        "*",
        [channel.port2],
      );
    };
    element.addEventListener("load", connect);
    setSrc(props.src);
    return () => {
      element.removeEventListener("load", connect);
      port?.close();
    };
  }, []);
  return (
    <div class="plugin-frame">
      <iframe
        ref={frame}
        src={src}
        title={props.title}
        sandbox="allow-scripts allow-forms"
        referrerpolicy="no-referrer"
        style={{ height: `${height}px` }}
      />
      <p class="hint" role="status">{notice}</p>
    </div>
  );
}

export default island("PluginFrame", PluginFrame);
