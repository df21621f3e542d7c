// This module is browser compatible.
// Ctrl+S (Cmd+S on a Mac) saves the editor's form as its Save button would, instead of the
// browser's "Save page as"; without JavaScript the form's buttons do the same.
import { useEffect } from "preact/hooks";
import { island } from "../core/web/island.ts";

/** Props (plain JSON). */
export type SaveShortcutProps = {
  /** The form Ctrl+S submits. */
  formId: string;
  /** The id of the button whose name and value the submission carries. */
  buttonId: string;
};

function SaveShortcut(props: SaveShortcutProps) {
  useEffect(() => {
    const pressed = (event: KeyboardEvent) => {
      if (
        event.key.toLowerCase() !== "s" || event.altKey || event.shiftKey ||
        !(event.ctrlKey || event.metaKey)
      ) return;
      const form = document.getElementById(props.formId) as
        | HTMLFormElement
        | null;
      const button = document.getElementById(props.buttonId) as
        | HTMLButtonElement
        | null;
      if (!form || !button || button.disabled) return;
      event.preventDefault();
      // The rich-text editor writes its field on every change, so the form holds what is shown.
      form.requestSubmit(button);
    };
    document.addEventListener("keydown", pressed);
    return () => document.removeEventListener("keydown", pressed);
  }, []);
  return <span class="save-shortcut" hidden />;
}

export default island("SaveShortcut", SaveShortcut);
