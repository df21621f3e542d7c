// This module is browser compatible.
// Autosave of the entry editor: as the person types, the form is sent as their working draft
// (a pause of 1.5 s after the last change), and a status line says whether it was kept.
import { useEffect, useState } from "preact/hooks";
import { island } from "../core/web/island.ts";

/** Props (plain JSON). */
export type AutosaveProps = {
  /** The form whose fields are autosaved. */
  formId: string;
  /** Where the draft is posted (the editor's `/draft` route). */
  url: string;
  /** The hidden input holding the draft revision the next write is pinned to. */
  revisionInputId: string;
};

/** Milliseconds of quiet after the last change before a write. */
const QUIET_MS = 1500;

function Autosave(props: AutosaveProps) {
  const [status, setStatus] = useState("");
  useEffect(() => {
    const form = document.getElementById(props.formId) as
      | HTMLFormElement
      | null;
    if (!form) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let sending = false;
    let again = false;
    // Once the form is submitted its values go into a saved version: an autosave sent after
    // that would come back as "unsaved changes" that were in fact saved.
    let submitted = false;
    const send = async () => {
      if (submitted) return;
      if (sending) {
        again = true;
        return;
      }
      sending = true;
      setStatus("Autosaving…");
      try {
        const body = new FormData(form);
        body.set("action", "autosave");
        const response = await fetch(props.url, {
          method: "POST",
          body,
          headers: { accept: "application/json" },
          credentials: "same-origin",
        });
        const answer = await response.json();
        if (answer.ok) {
          const input = document.getElementById(
            props.revisionInputId,
          ) as HTMLInputElement | null;
          if (input) input.value = String(answer.revision);
          setStatus(
            `Changes autosaved at ${
              String(answer.saved_at).slice(11, 16)
            } UTC (not yet a version)`,
          );
        } else {
          setStatus(answer.message ?? "Not autosaved");
        }
      } catch {
        setStatus("Not autosaved: the service could not be reached");
      } finally {
        sending = false;
        if (again) {
          again = false;
          void send();
        }
      }
    };
    const changed = () => {
      if (submitted) return;
      clearTimeout(timer);
      timer = setTimeout(send, QUIET_MS);
    };
    const submitting = () => {
      submitted = true;
      again = false;
      clearTimeout(timer);
    };
    // A page restored from the back/forward cache is a form that can be edited again.
    const shown = (event: PageTransitionEvent) => {
      if (event.persisted) submitted = false;
    };
    form.addEventListener("input", changed);
    form.addEventListener("change", changed);
    form.addEventListener("submit", submitting);
    addEventListener("pageshow", shown);
    return () => {
      clearTimeout(timer);
      form.removeEventListener("input", changed);
      form.removeEventListener("change", changed);
      form.removeEventListener("submit", submitting);
      removeEventListener("pageshow", shown);
    };
  }, []);
  return (
    <span class="autosave-status muted" role="status" aria-live="polite">
      {status}
    </span>
  );
}

export default island("Autosave", Autosave);
