// GET/POST /admin/settings/media-files: which kinds and formats of file the library takes and the
// largest upload the admin accepts (the `media-files` settings document).
import type { Context } from "hono";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import type { PageProps } from "../../../core/web/manifest.ts";
import { AdminShell } from "../_shell.tsx";
import { formList } from "../../../core/admin/form_values.ts";
import {
  codesOf,
  type DocumentData,
  DocumentFormHead,
  documentHandler,
  DocumentMessages,
  FieldProblem,
  openDocumentPage,
  problemsAt,
} from "./_document.tsx";

export const middleware = requireSignedIn;

type MediaFilesData = DocumentData<"media-files">;

const KINDS = ["image", "document", "audio", "video", "file"] as const;
const MB = 1_000_000;

async function mediaFilesData(
  c: Context<AppEnv>,
  extra: Partial<MediaFilesData> = {},
): Promise<MediaFilesData> {
  const { data } = await openDocumentPage(c, "media-files", "Media files");
  return { ...data, ...extra };
}

export const handler = documentHandler({
  key: "media-files",
  path: "/admin/settings/media-files",
  load: mediaFilesData,
  fromForm(form) {
    const formats = codesOf(form.enabled_formats).map((f) => f.toLowerCase());
    const megabytes = String(form.max_upload_mb ?? "").trim();
    return {
      enabled_kinds: formList(form.enabled_kinds),
      max_upload_bytes: megabytes === ""
        ? Number.NaN
        : Math.round(Number(megabytes) * MB),
      ...(formats.length > 0 ? { enabled_formats: formats } : {}),
    };
  },
});

export default function MediaFiles({ data }: PageProps<MediaFilesData>) {
  const doc = data.document;
  const invalid = (path: string) =>
    problemsAt(data.problems, path).length > 0 ? "true" as const : undefined;
  const bytes = doc.max_upload_bytes;
  return (
    <AdminShell shell={data.shell} title="Media files">
      <DocumentMessages notice={data.notice} alert={data.alert} />
      <form method="post" class="card stack">
        <DocumentFormHead
          csrfToken={data.shell.csrfToken}
          revision={data.revision}
        />
        <FieldProblem
          problems={data.problems}
          path="enabled_kinds"
          id="kinds-error"
        />
        <fieldset class="checks">
          <legend>Kinds of file the library takes</legend>
          {KINDS.map((kind) => (
            <label key={kind}>
              <input
                type="checkbox"
                name="enabled_kinds"
                value={kind}
                checked={doc.enabled_kinds.includes(kind)}
              />{" "}
              {kind}
            </label>
          ))}
        </fieldset>
        <div class="field">
          <label for="max-upload">Largest upload in the admin (MB)</label>
          <FieldProblem
            problems={data.problems}
            path="max_upload_bytes"
            id="max-upload-error"
          />
          <input
            id="max-upload"
            name="max_upload_mb"
            type="number"
            min={0.000001}
            max={5000}
            step="any"
            value={Number.isFinite(bytes) ? String(bytes / MB) : ""}
            aria-invalid={invalid("max_upload_bytes")}
            aria-describedby="max-upload-hint"
          />
          <p class="hint" id="max-upload-hint">
            Up to 5,000 MB. The Management API takes at most 32 MiB per upload
            whatever this says.
          </p>
        </div>
        <div class="field">
          <label for="formats">Only these formats</label>
          <FieldProblem
            problems={data.problems}
            path="enabled_formats"
            id="formats-error"
          />
          <input
            id="formats"
            name="enabled_formats"
            value={(doc.enabled_formats ?? []).join(", ")}
            aria-invalid={invalid("enabled_formats")}
            aria-describedby="formats-hint"
          />
          <p class="hint" id="formats-hint">
            Formats as the library names them from the bytes (png, jpg, pdf,
            mp4…), separated by commas; empty takes every format of the kinds
            ticked.
          </p>
        </div>
        <p class="buttons">
          <button type="submit">Save</button>
        </p>
      </form>
    </AdminShell>
  );
}
