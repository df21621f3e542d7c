// This module is browser compatible.
// A button that copies the text of another element (a secret shown once) to the clipboard.
import { useEffect, useState } from "preact/hooks";
import { island } from "../core/web/island.ts";

/** Props of the copy button: the id of the element whose text it copies and what that is. */
export interface CopyButtonProps extends Record<string, unknown> {
  targetId: string;
  label: string;
}

function CopyButton(props: CopyButtonProps) {
  const [copied, setCopied] = useState<"idle" | "done" | "failed">("idle");
  // Enabled only once hydrated: without JavaScript the secret stays selectable text.
  const [ready, setReady] = useState(false);
  useEffect(() => setReady(true), []);
  async function copy() {
    const text = document.getElementById(props.targetId)?.textContent ?? "";
    try {
      await navigator.clipboard.writeText(text);
      setCopied("done");
    } catch {
      setCopied("failed");
    }
  }
  return (
    <span class="copy">
      <button
        type="button"
        class="secondary"
        onClick={copy}
        disabled={!ready}
        aria-label={`Copy ${props.label}`}
      >
        Copy
      </button>{" "}
      <span role="status">
        {copied === "done"
          ? "Copied"
          : copied === "failed"
          ? "Copy failed: select the text and copy it by hand"
          : ""}
      </span>
    </span>
  );
}

export default island("CopyButton", CopyButton);
