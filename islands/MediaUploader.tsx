// This module is browser compatible.
// Uploads files to the library: a plain multipart form without script; with it, drag and drop,
// one progress bar per file, and duplicate prompts in words.
import { useEffect, useState } from "preact/hooks";
import { island } from "../core/web/island.ts";

/** Props: the page's CSRF token and the folder new files go to (null: Unfiled). */
export type MediaUploaderProps = {
  csrfToken: string;
  folderId: string | null;
  folderName: string | null;
};

type Row = {
  key: string;
  file: File;
  progress: number;
  state: "uploading" | "done" | "duplicate" | "failed" | "skipped";
  message: string;
};

type Answer = {
  item?: { file_name: string };
  error?: {
    code: string;
    message: string;
    existing?: { file_name: string };
    copy_count?: number;
  };
};

function send(
  props: MediaUploaderProps,
  file: File,
  onDuplicate: string,
  onProgress: (fraction: number) => void,
): Promise<{ status: number; body: Answer }> {
  return new Promise((resolve) => {
    const form = new FormData();
    form.append("_csrf", props.csrfToken);
    form.append("action", "upload");
    form.append("on_duplicate", onDuplicate);
    if (props.folderId) form.append("folder_id", props.folderId);
    form.append("file", file);
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/admin/media");
    xhr.setRequestHeader("accept", "application/json");
    xhr.setRequestHeader("x-csrf-token", props.csrfToken);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: Answer = {};
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = { error: { code: "failed", message: "The upload failed" } };
      }
      resolve({ status: xhr.status, body });
    };
    xhr.onerror = () =>
      resolve({
        status: 0,
        body: {
          error: { code: "network", message: "The connection was lost" },
        },
      });
    xhr.send(form);
  });
}

function copies(n: number): string {
  return n === 1 ? "1 copy" : `${n} copies`;
}

export function MediaUploader(props: MediaUploaderProps) {
  const [hydrated, setHydrated] = useState(false);
  const [rows, setRows] = useState<Row[]>([]);
  const [over, setOver] = useState(false);
  useEffect(() => setHydrated(true), []);

  const update = (key: string, change: Partial<Row>) =>
    setRows((list) => list.map((r) => r.key === key ? { ...r, ...change } : r));

  async function upload(row: Row, onDuplicate: string) {
    update(row.key, { state: "uploading", progress: 0, message: "Uploading" });
    const { status, body } = await send(
      props,
      row.file,
      onDuplicate,
      (p) => update(row.key, { progress: p }),
    );
    if (status === 201 || status === 200) {
      update(row.key, {
        state: "done",
        progress: 1,
        message: status === 200
          ? "Already in the library: the existing file is used"
          : "Uploaded",
      });
    } else if (body.error?.code === "media_duplicate") {
      update(row.key, {
        state: "duplicate",
        message: `The library already has this exact file as “${
          body.error.existing?.file_name ?? "?"
        }” (${copies(body.error.copy_count ?? 1)}).`,
      });
    } else {
      update(row.key, {
        state: "failed",
        message: body.error?.message ?? "The upload failed",
      });
    }
  }

  function start(files: FileList | File[], onDuplicate: string) {
    const added = [...files].map((file, i) => ({
      key: `${Date.now()}-${i}-${file.name}`,
      file,
      progress: 0,
      state: "uploading" as const,
      message: "Waiting",
    }));
    setRows((list) => [...list, ...added]);
    for (const row of added) upload(row, onDuplicate);
  }

  const busy = rows.some((r) =>
    r.state === "uploading" || r.state === "duplicate"
  );
  const anyDone = rows.some((r) => r.state === "done");

  return (
    <form
      method="post"
      action="/admin/media"
      encType="multipart/form-data"
      class={`card uploader${over ? " drag-over" : ""}`}
      onSubmit={(e) => {
        if (!hydrated) return;
        e.preventDefault();
        const form = e.currentTarget as HTMLFormElement;
        const input = form.elements.namedItem("file") as HTMLInputElement;
        const choice =
          (form.elements.namedItem("on_duplicate") as HTMLSelectElement).value;
        if (input.files && input.files.length > 0) start(input.files, choice);
        input.value = "";
      }}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        if (e.dataTransfer?.files.length) start(e.dataTransfer.files, "ask");
      }}
    >
      <h2>Upload</h2>
      <input type="hidden" name="_csrf" value={props.csrfToken} />
      <input type="hidden" name="action" value="upload" />
      {props.folderId && (
        <input type="hidden" name="folder_id" value={props.folderId} />
      )}
      <p class="muted">
        {hydrated ? "Drop files here, or choose them. " : ""}
        New files go to{" "}
        {props.folderName ? `“${props.folderName}”` : "Unfiled"}. Images,
        documents, audio and video; no programs, scripts or SVG/HTML.
      </p>
      {
        /* The choice comes before the files: the server reads the form in order and stores each
          file while it arrives, so what applies to a file must precede it. */
      }
      <p>
        <label for="upload-duplicate">
          If the same file is already in the library
        </label>
        <select id="upload-duplicate" name="on_duplicate">
          <option value="ask">Ask me</option>
          <option value="use_existing">Use the existing file</option>
          <option value="copy">Upload a copy</option>
        </select>
      </p>
      <p>
        <label for="upload-file">Files to upload</label>
        <input id="upload-file" type="file" name="file" multiple required />
      </p>
      <button type="submit">Upload</button>
      {rows.length > 0 && (
        <ul class="upload-list" aria-live="polite">
          {rows.map((row) => (
            <li key={row.key} class={`upload-${row.state}`}>
              <label>
                <span class="media-name">{row.file.name}</span>
                <progress max={1} value={row.progress}>
                  {Math.round(row.progress * 100)}%
                </progress>
              </label>
              <span>{row.message}</span>
              {row.state === "duplicate" && (
                <span class="buttons">
                  <button
                    type="button"
                    class="secondary"
                    onClick={() => upload(row, "use_existing")}
                  >
                    Use the existing file
                  </button>
                  <button
                    type="button"
                    class="secondary"
                    onClick={() => upload(row, "copy")}
                  >
                    Upload a copy
                  </button>
                  <button
                    type="button"
                    class="secondary"
                    onClick={() =>
                      update(row.key, { state: "skipped", message: "Skipped" })}
                  >
                    Skip
                  </button>
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
      {anyDone && !busy && (
        <p>
          <a
            href={props.folderId
              ? `/admin/media?folder=${props.folderId}`
              : "/admin/media"}
          >
            Show the library with the new files
          </a>
        </p>
      )}
    </form>
  );
}

export default island("MediaUploader", MediaUploader);
