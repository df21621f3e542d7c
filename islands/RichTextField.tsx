// This module is browser compatible.
// The rich-text field: a textarea of the canonical HTML without JavaScript; with it, a Tiptap editor
// that writes canonical HTML back into the textarea the form posts.
import { useEffect, useRef, useState } from "preact/hooks";
import { island } from "../core/web/island.ts";

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

type EditorHandle = {
  chain(): {
    focus(): Record<string, (...args: unknown[]) => { run(): boolean }>;
  };
  isActive(name: string, attrs?: Record<string, unknown>): boolean;
  destroy(): void;
};

const TOOLS: {
  label: string;
  run: string;
  args?: unknown[];
  active?: [string, Record<string, unknown>?];
}[] = [
  { label: "Bold", run: "toggleBold", active: ["bold"] },
  { label: "Italic", run: "toggleItalic", active: ["italic"] },
  { label: "Underline", run: "toggleUnderline", active: ["underline"] },
  { label: "Strike", run: "toggleStrike", active: ["strike"] },
  { label: "Code", run: "toggleCode", active: ["code"] },
  {
    label: "Heading 2",
    run: "toggleHeading",
    args: [{ level: 2 }],
    active: ["heading", { level: 2 }],
  },
  {
    label: "Heading 3",
    run: "toggleHeading",
    args: [{ level: 3 }],
    active: ["heading", { level: 3 }],
  },
  { label: "Bullets", run: "toggleBulletList", active: ["bulletList"] },
  { label: "Numbers", run: "toggleOrderedList", active: ["orderedList"] },
  { label: "Quote", run: "toggleBlockquote", active: ["blockquote"] },
  { label: "Code block", run: "toggleCodeBlock", active: ["codeBlock"] },
  { label: "Rule", run: "setHorizontalRule" },
  { label: "Undo", run: "undo" },
  { label: "Redo", run: "redo" },
];

function RichTextField(props: RichTextFieldProps) {
  const area = useRef<HTMLTextAreaElement>(null);
  const mount = useRef<HTMLDivElement>(null);
  const editor = useRef<EditorHandle | null>(null);
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
      }) as unknown as EditorHandle;
      setMode("rich");
    });
    return () => {
      cancelled = true;
      editor.current?.destroy();
    };
  }, []);
  const run = (tool: typeof TOOLS[number]) => {
    const chain = editor.current?.chain().focus();
    if (!chain) return;
    chain[tool.run](...(tool.args ?? [])).run();
  };
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
            aria-pressed={tool.active
              ? editor.current?.isActive(...tool.active) ?? false
              : undefined}
            onClick={() => run(tool)}
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
