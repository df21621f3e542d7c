// This module is browser compatible.
// Enhances the server-rendered page editor: sections can be dragged by their handle (the move is
// posted through the page's own move form, as its Up and Down buttons post it), and what is typed
// into a section's heading shows at once in the list and the structure preview.
import { useEffect, useState } from "preact/hooks";
import { island } from "../core/web/island.ts";

/** Ids of the elements the island works on; all rendered by the page. */
export interface PageSectionsProps extends Record<string, unknown> {
  /** The `<ol>` of section rows (`li[data-section-id]`, each with a `[data-drag-handle]`). */
  listId: string;
  /** The hidden form posting `action=move` with `section` and `to`. */
  moveFormId: string;
  /** The section form, whose `[data-preview]` controls update `[data-preview-text]` elements. */
  formId: string;
}

function rowsOf(list: HTMLElement): HTMLElement[] {
  return [...list.children].filter((c): c is HTMLElement =>
    c instanceof HTMLElement && c.dataset.sectionId !== undefined
  );
}

function attachDrag(
  list: HTMLElement,
  move: (id: string, to: number, name: string) => void,
): () => void {
  let dragging: HTMLElement | null = null;
  let from = -1;
  const restore = () => {
    if (!dragging) return;
    const rows = rowsOf(list).filter((r) => r !== dragging);
    list.insertBefore(dragging, rows[from] ?? null);
    dragging.classList.remove("dragging");
    dragging = null;
  };
  const down = (e: PointerEvent) => {
    const handle = (e.target as Element).closest("[data-drag-handle]");
    const row = handle?.closest<HTMLElement>("[data-section-id]");
    if (!handle || !row || e.button !== 0) return;
    e.preventDefault();
    (handle as HTMLElement).setPointerCapture?.(e.pointerId);
    dragging = row;
    from = rowsOf(list).indexOf(row);
    row.classList.add("dragging");
  };
  const over = (e: PointerEvent) => {
    if (!dragging) return;
    const others = rowsOf(list).filter((r) => r !== dragging);
    const next = others.find((r) => {
      const box = r.getBoundingClientRect();
      return e.clientY < box.top + box.height / 2;
    });
    if (next) {
      if (dragging.nextElementSibling !== next) {
        list.insertBefore(dragging, next);
      }
    } else if (
      others.length > 0 && others.at(-1)!.nextElementSibling !== dragging
    ) {
      others.at(-1)!.after(dragging);
    }
  };
  const up = () => {
    if (!dragging) return;
    const row = dragging;
    const to = rowsOf(list).indexOf(row);
    row.classList.remove("dragging");
    dragging = null;
    if (to !== from) {
      const name = row.querySelector("strong")?.textContent ||
        row.dataset.sectionId!;
      move(row.dataset.sectionId!, to, name);
    }
  };
  const key = (e: KeyboardEvent) => {
    if (e.key === "Escape") restore();
  };
  list.addEventListener("pointerdown", down);
  list.addEventListener("pointermove", over);
  list.addEventListener("pointerup", up);
  list.addEventListener("pointercancel", restore);
  document.addEventListener("keydown", key);
  return () => {
    list.removeEventListener("pointerdown", down);
    list.removeEventListener("pointermove", over);
    list.removeEventListener("pointerup", up);
    list.removeEventListener("pointercancel", restore);
    document.removeEventListener("keydown", key);
  };
}

function PageSections(props: PageSectionsProps) {
  const [status, setStatus] = useState("");
  useEffect(() => {
    const list = document.getElementById(props.listId);
    const moveForm = document.getElementById(props.moveFormId) as
      | HTMLFormElement
      | null;
    const cleanups: (() => void)[] = [];
    if (list && moveForm) {
      list.dataset.enhanced = "true";
      cleanups.push(attachDrag(list, (id, to, name) => {
        setStatus(`Moving “${name}” to position ${to + 1}…`);
        (moveForm.elements.namedItem("section") as HTMLInputElement).value = id;
        (moveForm.elements.namedItem("to") as HTMLInputElement).value = String(
          to,
        );
        moveForm.submit();
      }));
    }
    const form = document.getElementById(props.formId);
    if (form) {
      const typed = (e: Event) => {
        const input = e.target as HTMLInputElement;
        const key = input.dataset?.preview;
        if (!key) return;
        for (
          const el of document.querySelectorAll<HTMLElement>(
            `[data-preview-text="${CSS.escape(key)}"]`,
          )
        ) el.textContent = input.value;
      };
      form.addEventListener("input", typed);
      cleanups.push(() => form.removeEventListener("input", typed));
    }
    return () => cleanups.forEach((c) => c());
  }, []);
  return <p role="status" class="visually-hidden">{status}</p>;
}

export default island("PageSections", PageSections);
