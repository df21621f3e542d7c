// This module is browser compatible.
// The rich-text field: a textarea of the canonical HTML without JavaScript; with it, a ProseMirror editor
// that writes canonical HTML back into the textarea the form posts.
import { useEffect, useRef, useState } from "preact/hooks";
import { island } from "../core/web/island.ts";
import type { RichTextEditor, ToolName } from "./rich_text/editor.ts";
import { safeLinkHref } from "./rich_text/links.ts";

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
  { label: "Link", name: "link", pressable: true },
  { label: "Rule", name: "rule", pressable: false },
  { label: "Undo", name: "undo", pressable: false },
  { label: "Redo", name: "redo", pressable: false },
];

function RichTextField(props: RichTextFieldProps) {
  const area = useRef<HTMLTextAreaElement>(null);
  const mount = useRef<HTMLDivElement>(null);
  const editor = useRef<RichTextEditor | null>(null);
  // "text" until the editor's chunk runs ("plain" when it cannot load): the page's formatted copy
  // of the text stands in for the source meanwhile.
  const [mode, setMode] = useState<"text" | "plain" | "rich">("text");
  const [, setTick] = useState(0);
  const dialog = useRef<HTMLDialogElement>(null);
  const [link, setLink] = useState({ href: "", editing: false, error: "" });
  // The text the dialog links: the selection when it opened, since the dialog takes the focus.
  const linked = useRef<{ from: number; to: number } | undefined>(undefined);
  const openLink = () => {
    const current = editor.current?.linkHref() ?? null;
    linked.current = editor.current?.selection();
    setLink({ href: current ?? "", editing: current !== null, error: "" });
    dialog.current?.showModal();
  };
  const closeLink = () => {
    dialog.current?.close();
    editor.current?.focus();
  };
  const applyLink = () => {
    const href = safeLinkHref(link.href);
    if (href === null) {
      setLink({
        ...link,
        error:
          "Enter a web address (https://…), an email address, a phone number (tel:…) or a path on this site (/…)",
      });
      return;
    }
    dialog.current?.close();
    editor.current?.setLink(href, linked.current);
  };
  const removeLink = () => {
    dialog.current?.close();
    editor.current?.setLink(null, linked.current);
  };
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
        onLinkRequest: openLink,
      });
      setMode("rich");
    }).catch(() => {
      if (!cancelled) setMode("plain");
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
            aria-haspopup={tool.name === "link" ? "dialog" : undefined}
            aria-keyshortcuts={tool.name === "link" ? "Control+K" : undefined}
            onClick={() =>
              tool.name === "link"
                ? openLink()
                : editor.current?.run(tool.name)}
          >
            {tool.label}
          </button>
        ))}
      </div>
      <dialog
        ref={dialog}
        class="link-dialog"
        aria-labelledby={`${props.id}-link-title`}
        onClose={() => editor.current?.focus()}
      >
        {/* Not a form: the field sits inside the editor's form, and forms cannot nest. */}
        <div class="stack">
          <h2 id={`${props.id}-link-title`}>
            {link.editing ? "Edit link" : "Add link"}
          </h2>
          <label for={`${props.id}-link-href`}>Address</label>
          <input
            id={`${props.id}-link-href`}
            type="text"
            inputMode="url"
            autocomplete="url"
            value={link.href}
            aria-invalid={link.error ? "true" : undefined}
            aria-describedby={`${props.id}-link-hint`}
            onInput={(e) =>
              setLink({ ...link, href: e.currentTarget.value, error: "" })}
            onKeyDown={(e) => {
              // Enter applies the link (when released); it must not submit the editor's form.
              if (e.key === "Enter") e.preventDefault();
            }}
            onKeyUp={(e) => {
              // Applied once the key is up: closing the dialog on the key's way down would move
              // the focus to the text while the key still acts, and it would type there.
              if (e.key === "Enter") applyLink();
            }}
          />
          <p
            class={link.error ? "field-error" : "hint"}
            id={`${props.id}-link-hint`}
          >
            {link.error ||
              "A web address, an email address, tel:… or a path on this site such as /about"}
          </p>
          <p class="buttons">
            <button type="button" onClick={applyLink}>
              {link.editing ? "Save link" : "Add link"}
            </button>
            {link.editing && (
              <button type="button" class="danger" onClick={removeLink}>
                Remove link
              </button>
            )}
            <button type="button" class="secondary" onClick={closeLink}>
              Cancel
            </button>
          </p>
        </div>
      </dialog>
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
