// This module is browser compatible.
// The rich-text field: a textarea of the canonical HTML without JavaScript; with it, a ProseMirror editor
// that writes canonical HTML back into the textarea the form posts.
import { useEffect, useRef, useState } from "preact/hooks";
import { island } from "../core/web/island.ts";
import type { RichTextEditor, ToolName } from "./rich_text/editor.ts";

/** Props of the rich-text field. */
export interface RichTextFieldProps extends Record<string, unknown> {
  id: string;
  name: string;
  value: string;
  readOnly: boolean;
  describedBy: string;
  invalid: boolean;
  label: string;
}

const TOOLS: { label: string; name: ToolName; pressable: boolean }[] = [
  { label: "Bold", name: "bold", pressable: true },
  { label: "Italic", name: "italic", pressable: true },
  { label: "Underline", name: "underline", pressable: true },
  { label: "Strike", name: "strike", pressable: true },
  { label: "Code", name: "code", pressable: true },
  { label: "Heading 2", name: "heading2", pressable: true },
  { label: "Heading 3", name: "heading3", pressable: true },
  { label: "Bullets", name: "bulletList", pressable: true },
  { label: "Numbers", name: "orderedList", pressable: true },
  { label: "Quote", name: "blockquote", pressable: true },
  { label: "Code block", name: "codeBlock", pressable: true },
  { label: "Rule", name: "rule", pressable: false },
  { label: "Undo", name: "undo", pressable: false },
  { label: "Redo", name: "redo", pressable: false },
];

function RichTextField(props: RichTextFieldProps) {
  const area = useRef<HTMLTextAreaElement>(null);
  const mount = useRef<HTMLDivElement>(null);
  const editor = useRef<RichTextEditor | null>(null);
  const [mode, setMode] = useState<"text" | "rich">("text");
  const [, setTick] = useState(0);
  useEffect(() => {
    if (props.readOnly) return;
    let cancelled = false;
    // The editor is its own chunk: the page is usable with the textarea while it loads.
    import("./rich_text/editor.ts").then(({ createRichTextEditor }) => {
      if (cancelled || !mount.current || !area.current) return;
      const textarea = area.current;
      editor.current = createRichTextEditor({
        element: mount.current,
        html: textarea.value,
        label: props.label,
        describedBy: props.describedBy,
        editable: true,
        onChange: (html) => {
          textarea.value = html;
          // Listeners on the form (autosave) hear the change as they hear typing.
          textarea.dispatchEvent(new Event("input", { bubbles: true }));
        },
        onState: () => setTick((n) => n + 1),
      });
      setMode("rich");
    });
    return () => {
      cancelled = true;
      editor.current?.destroy();
    };
  }, []);
  return (
    <div class="rich-text-editor" data-mode={mode}>
      <div
        class="toolbar"
        role="toolbar"
        aria-label={`Formatting of ${props.label}`}
        hidden={mode !== "rich"}
      >
        {TOOLS.map((tool) => (
          <button
            key={tool.label}
            type="button"
            class="secondary"
            aria-pressed={tool.pressable
              ? editor.current?.isActive(tool.name) ?? false
              : undefined}
            onClick={() => editor.current?.run(tool.name)}
          >
            {tool.label}
          </button>
        ))}
      </div>
      <div ref={mount} hidden={mode !== "rich"} />
      <textarea
        ref={area}
        id={props.id}
        name={props.name}
        rows={10}
        readOnly={props.readOnly}
        hidden={mode === "rich"}
        spellcheck
        aria-describedby={props.describedBy || undefined}
        aria-invalid={props.invalid ? "true" : undefined}
      >
        {props.value}
      </textarea>
    </div>
  );
}

export default island("RichTextField", RichTextField);
