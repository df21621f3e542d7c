// This module is browser compatible.
// The rich-text editor on ProseMirror: a schema of exactly the elements canonical rich text allows
// (docs/models.md, "Rich text"), parsed from canonical HTML and written back through canonical.ts.
// ProseMirror is used directly rather than through Tiptap: the same model, view and commands
// without Tiptap's extension layer, which was a third of the editor page's JavaScript. The
// packages come through `@tiptap/pm`, which pins one matching set of ProseMirror versions.
import {
  baseKeymap,
  chainCommands,
  exitCode,
  setBlockType,
  toggleMark,
  wrapIn,
} from "@tiptap/pm/commands";
import { gapCursor } from "@tiptap/pm/gapcursor";
import { closeHistory, history, redo, undo } from "@tiptap/pm/history";
import {
  inputRules,
  textblockTypeInputRule,
  wrappingInputRule,
} from "@tiptap/pm/inputrules";
import { keymap } from "@tiptap/pm/keymap";
import {
  type Attrs,
  DOMParser,
  DOMSerializer,
  type MarkType,
  type Node as DocNode,
  type NodeType,
  Schema,
} from "@tiptap/pm/model";
import {
  liftListItem,
  sinkListItem,
  splitListItem,
  wrapInList,
} from "@tiptap/pm/schema-list";
import {
  type Command,
  EditorState,
  Plugin,
  TextSelection,
} from "@tiptap/pm/state";
import { findWrapping, liftTarget } from "@tiptap/pm/transform";
import { EditorView } from "@tiptap/pm/view";
import { toCanonical } from "./canonical.ts";
import { linkRange, safeLinkHref } from "./links.ts";

const LIST = "bullet_list | ordered_list";

/** An attribute kept as its text, absent when missing. */
const kept = (name: string) => (dom: HTMLElement) => dom.getAttribute(name);

/**
 * Tables and figures (media, gallery, embed, plugin blocks) are kept whole as atoms: the editor
 * moves and deletes them, and their markup is edited in the HTML view, so nothing in them can be
 * lost or rewritten by the editor.
 */
function keptBlockDom(html: string): HTMLElement {
  const template = document.createElement("template");
  template.innerHTML = html;
  return (template.content.firstElementChild as HTMLElement | null) ??
    document.createElement("p");
}

/** The document model: canonical rich text's blocks, inlines and marks, and nothing else. */
export const schema = new Schema({
  nodes: {
    doc: { content: "block+" },
    paragraph: {
      content: "inline*",
      group: "block",
      parseDOM: [{ tag: "p" }],
      toDOM: () => ["p", 0],
    },
    heading: {
      attrs: { level: { default: 2 } },
      content: "inline*",
      group: "block",
      defining: true,
      parseDOM: [2, 3, 4, 5, 6].map((level) => ({
        tag: `h${level}`,
        attrs: { level },
      })),
      toDOM: (node) => [`h${node.attrs.level}`, 0],
    },
    blockquote: {
      content: `(paragraph | ${LIST})+`,
      group: "block",
      defining: true,
      parseDOM: [{ tag: "blockquote" }],
      toDOM: () => ["blockquote", 0],
    },
    bullet_list: {
      content: "list_item+",
      group: "block",
      parseDOM: [{ tag: "ul" }],
      toDOM: () => ["ul", 0],
    },
    ordered_list: {
      // Kept as written (null when absent), so `<ol>` and `<ol start="1">` both survive.
      attrs: { start: { default: null } },
      content: "list_item+",
      group: "block",
      parseDOM: [{
        tag: "ol",
        getAttrs: (dom) => ({ start: kept("start")(dom) }),
      }],
      toDOM: (node) =>
        node.attrs.start === null
          ? ["ol", 0]
          : ["ol", { start: node.attrs.start }, 0],
    },
    list_item: {
      content: `paragraph (${LIST})*`,
      defining: true,
      parseDOM: [{ tag: "li" }],
      toDOM: () => ["li", 0],
    },
    code_block: {
      attrs: { language: { default: null } },
      content: "text*",
      marks: "",
      group: "block",
      code: true,
      defining: true,
      parseDOM: [{
        tag: "pre",
        preserveWhitespace: "full",
        getAttrs: (dom) => ({
          language: dom.getAttribute("data-language") ??
            dom.querySelector("code")?.className.match(/language-(\S+)/)
              ?.[1] ??
            null,
        }),
      }],
      toDOM: (node) => [
        "pre",
        node.attrs.language ? { "data-language": node.attrs.language } : {},
        ["code", 0],
      ],
    },
    horizontal_rule: {
      group: "block",
      parseDOM: [{ tag: "hr" }],
      toDOM: () => ["hr"],
    },
    kept_block: {
      group: "block",
      atom: true,
      selectable: true,
      draggable: true,
      attrs: { html: { default: "" } },
      parseDOM: ["table", "figure"].map((tag) => ({
        tag,
        getAttrs: (dom: HTMLElement) => ({ html: dom.outerHTML }),
      })),
      toDOM: (node) => keptBlockDom(String(node.attrs.html)),
    },
    text: { group: "inline" },
    hard_break: {
      inline: true,
      group: "inline",
      selectable: false,
      parseDOM: [{ tag: "br" }],
      toDOM: () => ["br"],
    },
  },
  marks: {
    link: {
      attrs: {
        href: { default: null },
        title: { default: null },
        target: { default: null },
        rel: { default: null },
      },
      inclusive: false,
      parseDOM: [{
        tag: "a[href]",
        getAttrs: (dom) => ({
          href: kept("href")(dom),
          title: kept("title")(dom),
          target: kept("target")(dom),
          rel: kept("rel")(dom),
        }),
      }],
      toDOM: (mark) => [
        "a",
        Object.fromEntries(
          Object.entries(mark.attrs).filter(([, v]) => v !== null),
        ),
        0,
      ],
    },
    strong: {
      parseDOM: [{ tag: "strong" }, { tag: "b" }],
      toDOM: () => ["strong", 0],
    },
    em: { parseDOM: [{ tag: "em" }, { tag: "i" }], toDOM: () => ["em", 0] },
    underline: { parseDOM: [{ tag: "u" }], toDOM: () => ["u", 0] },
    strike: {
      parseDOM: [{ tag: "s" }, { tag: "del" }],
      toDOM: () => ["s", 0],
    },
    subscript: {
      excludes: "superscript",
      parseDOM: [{ tag: "sub" }],
      toDOM: () => ["sub", 0],
    },
    superscript: {
      excludes: "subscript",
      parseDOM: [{ tag: "sup" }],
      toDOM: () => ["sup", 0],
    },
    // Canonical inline code holds plain text only.
    code: {
      excludes: "_",
      parseDOM: [{ tag: "code" }],
      toDOM: () => ["code", 0],
    },
  },
});

const { nodes, marks } = schema;

/** The toolbar's tools, by the name the field's buttons use. */
export type ToolName =
  | "bold"
  | "italic"
  | "underline"
  | "strike"
  | "code"
  | "heading2"
  | "heading3"
  | "bulletList"
  | "orderedList"
  | "blockquote"
  | "codeBlock"
  | "link"
  | "rule"
  | "undo"
  | "redo";

function markActive(state: EditorState, type: MarkType): boolean {
  const { from, to, empty, $from } = state.selection;
  if (empty) return Boolean(type.isInSet(state.storedMarks ?? $from.marks()));
  return state.doc.rangeHasMark(from, to, type);
}

function nodeActive(state: EditorState, type: NodeType, attrs?: Attrs) {
  const { $from } = state.selection;
  for (let depth = $from.depth; depth > 0; depth--) {
    const node = $from.node(depth);
    if (
      node.type === type &&
      Object.entries(attrs ?? {}).every(([k, v]) => node.attrs[k] === v)
    ) return true;
  }
  return false;
}

/** Sets `type` on the text block, or back to a paragraph when it already is one. */
function toggleBlock(type: NodeType, attrs?: Attrs): Command {
  return (state, dispatch) =>
    nodeActive(state, type, attrs)
      ? setBlockType(nodes.paragraph)(state, dispatch)
      : setBlockType(type, attrs)(state, dispatch);
}

/** Lifts the items out of a list of `type`, turns a list of the other kind into one, or wraps. */
function toggleList(type: NodeType): Command {
  return (state, dispatch) => {
    if (nodeActive(state, type)) {
      return liftListItem(nodes.list_item)(state, dispatch);
    }
    const { $from } = state.selection;
    for (let depth = $from.depth; depth > 0; depth--) {
      const node = $from.node(depth);
      if (node.type === nodes.bullet_list || node.type === nodes.ordered_list) {
        dispatch?.(state.tr.setNodeMarkup($from.before(depth), type));
        return true;
      }
    }
    return wrapInList(type)(state, dispatch);
  };
}

/**
 * Quotes the selected blocks, or the whole list around them (a quote cannot stand inside a list
 * item); inside a quote, takes its blocks out of it.
 */
const toggleQuote: Command = (state, dispatch) => {
  const { $from, $to } = state.selection;
  if (nodeActive(state, nodes.blockquote)) {
    const range = $from.blockRange($to, (n) => n.type === nodes.blockquote);
    const target = range && liftTarget(range);
    if (!range || target === null || target === undefined) return false;
    dispatch?.(state.tr.lift(range, target).scrollIntoView());
    return true;
  }
  if (wrapIn(nodes.blockquote)(state, dispatch)) return true;
  const range = $from.blockRange($to, (n) => n.type === nodes.doc);
  const wrapping = range && findWrapping(range, nodes.blockquote);
  if (!range || !wrapping) return false;
  dispatch?.(state.tr.wrap(range, wrapping).scrollIntoView());
  return true;
};

const insertRule: Command = (state, dispatch) => {
  dispatch?.(
    state.tr.replaceSelectionWith(nodes.horizontal_rule.create())
      .scrollIntoView(),
  );
  return true;
};

const insertBreak: Command = (state, dispatch) => {
  dispatch?.(
    state.tr.replaceSelectionWith(nodes.hard_break.create()).scrollIntoView(),
  );
  return true;
};

const TOOLS: Record<
  ToolName,
  { run: Command; active?: (state: EditorState) => boolean }
> = {
  bold: {
    run: toggleMark(marks.strong),
    active: (s) => markActive(s, marks.strong),
  },
  italic: { run: toggleMark(marks.em), active: (s) => markActive(s, marks.em) },
  underline: {
    run: toggleMark(marks.underline),
    active: (s) => markActive(s, marks.underline),
  },
  strike: {
    run: toggleMark(marks.strike),
    active: (s) => markActive(s, marks.strike),
  },
  code: {
    run: toggleMark(marks.code),
    active: (s) => markActive(s, marks.code),
  },
  heading2: {
    run: toggleBlock(nodes.heading, { level: 2 }),
    active: (s) => nodeActive(s, nodes.heading, { level: 2 }),
  },
  heading3: {
    run: toggleBlock(nodes.heading, { level: 3 }),
    active: (s) => nodeActive(s, nodes.heading, { level: 3 }),
  },
  bulletList: {
    run: toggleList(nodes.bullet_list),
    active: (s) => nodeActive(s, nodes.bullet_list),
  },
  orderedList: {
    run: toggleList(nodes.ordered_list),
    active: (s) => nodeActive(s, nodes.ordered_list),
  },
  blockquote: {
    run: toggleQuote,
    active: (s) => nodeActive(s, nodes.blockquote),
  },
  codeBlock: {
    run: toggleBlock(nodes.code_block),
    active: (s) => nodeActive(s, nodes.code_block),
  },
  // The toolbar's Link button opens the field's link dialog instead (see RichTextEditor.setLink).
  link: {
    run: () => false,
    active: (s) => markActive(s, marks.link),
  },
  rule: { run: insertRule },
  undo: { run: undo },
  redo: { run: redo },
};

/**
 * Links the selection to `href`; with nothing selected, changes the link the cursor is in, or
 * writes the address itself as a linked text. `null` removes the link around the cursor or
 * from the selection.
 */
function setLinkCommand(href: string | null): Command {
  return (state, dispatch) => {
    const { from, to, empty, $from } = state.selection;
    const around = empty ? linkRange($from, marks.link) : null;
    const start = around?.from ?? from;
    const end = around?.to ?? to;
    const tr = state.tr;
    if (href === null) {
      if (start === end) return false;
      dispatch?.(tr.removeMark(start, end, marks.link).scrollIntoView());
      return true;
    }
    const mark = marks.link.create({ href });
    if (start === end) {
      tr.insert(start, schema.text(href, [mark]));
      tr.setSelection(TextSelection.create(tr.doc, start + href.length));
    } else {
      tr.removeMark(start, end, marks.link).addMark(start, end, mark);
    }
    dispatch?.(tr.scrollIntoView());
    return true;
  };
}

/** A pasted address becomes a link: over the selected text, or as the linked address itself. */
function autoLink(): Plugin {
  return new Plugin({
    props: {
      handlePaste(view, event) {
        const text = event.clipboardData?.getData("text/plain")?.trim() ?? "";
        // Only a whole absolute address: pasted prose that merely contains one stays text.
        if (!/^(https?:\/\/|mailto:)\S+$/i.test(text)) return false;
        const href = safeLinkHref(text);
        if (href === null) return false;
        const { state } = view;
        if (state.selection.$from.parent.type.spec.code) return false;
        return setLinkCommand(href)(
          state,
          (tr) => view.dispatch(closeHistory(tr)),
        );
      },
    },
  });
}

/** Markdown-like shortcuts typed at the start of a line. */
function shortcuts() {
  return inputRules({
    rules: [
      textblockTypeInputRule(
        /^(#{2,6})\s$/,
        nodes.heading,
        (match) => ({ level: match[1].length }),
      ),
      wrappingInputRule(/^\s*>\s$/, nodes.blockquote),
      wrappingInputRule(/^\s*([-+*])\s$/, nodes.bullet_list),
      wrappingInputRule(
        /^(\d+)\.\s$/,
        nodes.ordered_list,
        (match) => ({ start: match[1] === "1" ? null : match[1] }),
        (match, node) =>
          node.childCount + Number(node.attrs.start ?? 1) === Number(match[1]),
      ),
      textblockTypeInputRule(/^```$/, nodes.code_block),
    ],
  });
}

/** The canonical HTML of a document. */
export function canonicalOf(doc: DocNode): string {
  const holder = document.createElement("div");
  holder.append(
    DOMSerializer.fromSchema(schema).serializeFragment(doc.content),
  );
  return toCanonical(holder);
}

/** Parses canonical HTML into a document of the schema. */
export function documentOf(html: string): DocNode {
  const template = document.createElement("template");
  template.innerHTML = html;
  return DOMParser.fromSchema(schema).parse(template.content);
}

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
  /** Called on Ctrl+K (Cmd+K): the field asks for the link's address. */
  onLinkRequest?(): void;
}

/** What the field's toolbar drives. */
export interface RichTextEditor {
  run(tool: ToolName): void;
  isActive(tool: ToolName): boolean;
  /** The address of the link at the cursor or selection; null outside a link. */
  linkHref(): string | null;
  /** The selection now, to give back to {@link setLink} after a dialog took the focus. */
  selection(): { from: number; to: number };
  /**
   * Sets (an address already checked with safeLinkHref) or removes (null) the link, on the
   * selection `at` (as {@link selection} answered it) or the current one.
   */
  setLink(href: string | null, at?: { from: number; to: number }): void;
  /** Gives the editor the keyboard focus back (after the link dialog closes). */
  focus(): void;
  destroy(): void;
}

/** Creates the editor; the document starts from canonical HTML and is written back canonical. */
export function createRichTextEditor(
  options: RichTextEditorOptions,
): RichTextEditor {
  const attributes: Record<string, string> = {
    role: "textbox",
    "aria-multiline": "true",
    "aria-label": options.label,
  };
  if (options.describedBy) attributes["aria-describedby"] = options.describedBy;
  const list = nodes.list_item;
  const view: EditorView = new EditorView(options.element, {
    state: EditorState.create({
      doc: documentOf(options.html),
      plugins: [
        history(),
        shortcuts(),
        autoLink(),
        keymap({
          "Mod-k": () => {
            options.onLinkRequest?.();
            return true;
          },
          "Mod-z": undo,
          "Mod-y": redo,
          "Shift-Mod-z": redo,
          "Mod-b": toggleMark(marks.strong),
          "Mod-i": toggleMark(marks.em),
          "Mod-u": toggleMark(marks.underline),
          "Mod-e": toggleMark(marks.code),
          Enter: splitListItem(list),
          // Outside a list these answer false, so Tab still moves the focus on.
          Tab: sinkListItem(list),
          "Shift-Tab": liftListItem(list),
          "Shift-Enter": chainCommands(exitCode, insertBreak),
          "Mod-Enter": exitCode,
        }),
        keymap(baseKeymap),
        gapCursor(),
      ],
    }),
    editable: () => options.editable,
    attributes,
    dispatchTransaction(tr) {
      view.updateState(view.state.apply(tr));
      if (tr.docChanged) options.onChange(canonicalOf(view.state.doc));
      options.onState();
    },
  });
  return {
    run(tool) {
      // Each toolbar action is an undo step of its own, however quickly the next one follows.
      TOOLS[tool].run(
        view.state,
        (tr) => view.dispatch(closeHistory(tr)),
        view,
      );
      view.focus();
    },
    isActive: (tool) => TOOLS[tool].active?.(view.state) ?? false,
    linkHref() {
      const { $from, from, to, empty } = view.state.selection;
      const found = empty ? marks.link.isInSet($from.marks()) : (() => {
        let mark = null;
        view.state.doc.nodesBetween(from, to, (node) => {
          mark ??= marks.link.isInSet(node.marks) ?? null;
        });
        return mark;
      })();
      return found ? String(found.attrs.href) : null;
    },
    selection: () => ({
      from: view.state.selection.from,
      to: view.state.selection.to,
    }),
    setLink(href, at) {
      if (at) {
        const size = view.state.doc.content.size;
        const from = Math.min(at.from, size);
        const to = Math.min(at.to, size);
        view.dispatch(
          view.state.tr.setSelection(
            TextSelection.create(view.state.doc, from, to),
          ),
        );
      }
      setLinkCommand(href)(
        view.state,
        (tr) => view.dispatch(closeHistory(tr)),
      );
      view.focus();
    },
    focus: () => view.focus(),
    destroy: () => view.destroy(),
  };
}
