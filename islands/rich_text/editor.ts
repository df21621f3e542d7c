// This module is browser compatible.
// The Tiptap (ProseMirror) editor of a rich-text field, configured to the service's canonical rich text.
import { Editor, Extension, Mark, Node } from "@tiptap/core";
import StarterKit from "@tiptap/starter-kit";
import { toCanonical } from "./canonical.ts";

/** `sub` and `sup`, which the starter kit does not carry. */
const Subscript = Mark.create({
  name: "subscript",
  excludes: "superscript",
  parseHTML: () => [{ tag: "sub" }],
  renderHTML: ({ HTMLAttributes }) => ["sub", HTMLAttributes, 0],
});
const Superscript = Mark.create({
  name: "superscript",
  excludes: "subscript",
  parseHTML: () => [{ tag: "sup" }],
  renderHTML: ({ HTMLAttributes }) => ["sup", HTMLAttributes, 0],
});

/**
 * Tables and figures (media, gallery, embed, plugin blocks) are kept whole as atoms: the editor
 * moves and deletes them, and their markup is edited in the HTML view, so nothing in them can be
 * lost or rewritten by the editor.
 */
const KeptBlock = Node.create({
  name: "keptBlock",
  group: "block",
  atom: true,
  selectable: true,
  draggable: true,
  addAttributes: () => ({ html: { default: "" } }),
  parseHTML: () => [
    {
      tag: "table",
      priority: 1000,
      getAttrs: (el) => ({ html: (el as HTMLElement).outerHTML }),
    },
    {
      tag: "figure",
      priority: 1000,
      getAttrs: (el) => ({ html: (el as HTMLElement).outerHTML }),
    },
  ],
  renderHTML({ node }) {
    const template = document.createElement("template");
    template.innerHTML = String(node.attrs.html);
    const el = template.content.firstElementChild;
    return el ?? ["p", {}];
  },
});

/**
 * Links as canonical rich text has them (`href`, `title`, `target`, `rel`); our own small mark
 * instead of the starter kit's, which adds autolinking (linkifyjs, a quarter of the bundle).
 */
const Link = Mark.create({
  name: "link",
  inclusive: false,
  addAttributes: () => ({
    href: { default: null },
    title: { default: null },
    target: { default: null },
    rel: { default: null },
  }),
  parseHTML: () => [{ tag: "a[href]" }],
  renderHTML: ({ HTMLAttributes }) => ["a", HTMLAttributes, 0],
});

/** A code block's language, kept on `pre` as canonical text has it (`data-language`). */
const CodeLanguage = Extension.create({
  name: "codeLanguage",
  addGlobalAttributes: () => [{
    types: ["codeBlock"],
    attributes: {
      dataLanguage: {
        default: null,
        parseHTML: (el) => el.getAttribute("data-language"),
        renderHTML: (attrs) =>
          attrs.dataLanguage ? { "data-language": attrs.dataLanguage } : {},
      },
    },
  }],
});

/** Options of {@link createRichTextEditor}. */
export interface RichTextEditorOptions {
  element: HTMLElement;
  html: string;
  label: string;
  describedBy?: string;
  editable: boolean;
  /** Called with the canonical HTML after every change. */
  onChange(html: string): void;
  /** Called when the selection or document changes, to refresh the toolbar. */
  onState(): void;
}

/** Creates the editor; the document starts from canonical HTML and is written back canonical. */
export function createRichTextEditor(options: RichTextEditorOptions): Editor {
  const attributes: Record<string, string> = {
    role: "textbox",
    "aria-multiline": "true",
    "aria-label": options.label,
  };
  if (options.describedBy) attributes["aria-describedby"] = options.describedBy;
  const editor = new Editor({
    element: options.element,
    editable: options.editable,
    extensions: [
      StarterKit.configure({
        heading: { levels: [2, 3, 4, 5, 6] },
        link: false,
        codeBlock: { languageClassPrefix: "language-" },
        trailingNode: false,
      }),
      Subscript,
      Superscript,
      Link,
      KeptBlock,
      CodeLanguage,
    ],
    content: options.html,
    editorProps: { attributes },
    onUpdate: ({ editor }) => {
      const holder = document.createElement("div");
      holder.innerHTML = editor.getHTML();
      options.onChange(toCanonical(holder));
      options.onState();
    },
    onSelectionUpdate: () => options.onState(),
  });
  return editor;
}
