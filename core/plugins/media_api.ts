// `POST /api/plugin/v1/media`: a plugin uploads a file to the library for a delegated person
// (spec 1 part 4.1). The upload runs as that person through the library's one upload service
// (type from the bytes, the site's media-file settings, duplicates by digest) and is audited
// `plugin.media.upload` in the same transaction. The body is multipart, as the Management API's.
import type { Context } from "hono";
import { decide } from "../access/decide.ts";
import { snapshotActor } from "../entries/actor_snapshot.ts";
import { ledgerAuditWriter } from "../entries/audit.ts";
import { sha256HexSync } from "../kv/digest.ts";
import { IdempotencyStore } from "../kv/idempotency_store.ts";
import { mediaStorageOf } from "../media/storage_of.ts";
import {
  ALT_TEXT_MAX,
  altTextsFrom,
  API_UPLOAD_LIMIT,
  apiUploadLimit,
  uploadMedia,
} from "../media/upload.ts";
import type { AppEnv } from "../web/env.ts";
import {
  installationOf,
  outcomeWith,
  type PluginRefusal,
  pluginRefusal,
  refusalResponse,
  requireCapabilities,
} from "./api_support.ts";
import { useDelegation } from "./delegations.ts";
import { commandKey, keyDigest, runPluginCommand } from "./keyed.ts";
import { isId } from "../entries/store.ts";

/** The form fields the upload takes; any other name is refused. */
const FIELDS = new Set([
  "delegation_id",
  "file",
  "alt_texts",
  "folder_id",
  "on_duplicate",
]);

/** Room for the form's other fields and boundaries beside the largest file. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

const REFUSED_AS: Record<string, PluginRefusal["code"]> = {
  unknown_locale: "locale_unavailable",
  media_folder_not_found: "invalid_request",
};

type Parsed =
  | {
    ok: true;
    bytes: Uint8Array;
    fileName: string;
    delegationId: string;
    altTexts?: Record<string, string>;
    folderId?: string | null;
    onDuplicate?: "ask" | "use_existing" | "copy";
  }
  | PluginRefusal;

function invalid(message: string): PluginRefusal {
  return pluginRefusal("invalid_request", message);
}

async function readForm(
  body: Uint8Array<ArrayBuffer>,
  headers: Headers,
): Promise<Parsed> {
  let form: FormData;
  try {
    form = await new Request("http://upload.invalid/", {
      method: "POST",
      body,
      headers: { "content-type": headers.get("content-type") ?? "" },
    }).formData();
  } catch {
    return invalid("The body is not a readable multipart form");
  }
  const names = [...form.keys()];
  const unknown = names.find((n) => !FIELDS.has(n));
  if (unknown !== undefined) return invalid(`Unknown form field "${unknown}"`);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) {
    return invalid(`Form field "${twice}" is sent twice`);
  }
  const text = (name: string): string | undefined => {
    const v = form.get(name);
    return typeof v === "string" ? v : undefined;
  };
  const file = form.get("file");
  if (!(file instanceof File)) return invalid("file: a file is required");
  const delegationId = text("delegation_id") ?? "";
  if (delegationId === "" || delegationId.length > 64) {
    return invalid("delegation_id: the delegation the upload is made for");
  }
  const alt = text("alt_texts");
  const altTexts = alt === undefined ? undefined : altTextsFrom(alt);
  if (altTexts === null) {
    return invalid(
      `alt_texts: a JSON object of language to text (at most ${ALT_TEXT_MAX} characters)`,
    );
  }
  const onDuplicate = text("on_duplicate");
  if (
    onDuplicate !== undefined &&
    !["ask", "use_existing", "copy"].includes(onDuplicate)
  ) {
    return invalid("on_duplicate: ask, use_existing or copy");
  }
  const folder = text("folder_id");
  if (
    folder !== undefined && folder !== "" && !isId(folder)
  ) {
    return invalid("folder_id: a media folder id, or empty for Unfiled");
  }
  return {
    ok: true,
    bytes: new Uint8Array(await file.arrayBuffer()),
    fileName: file.name,
    delegationId,
    altTexts,
    folderId: folder === undefined ? undefined : folder || null,
    onDuplicate: onDuplicate as "ask" | "use_existing" | "copy" | undefined,
  };
}

/** `POST /media`: the file, stored for the delegated person; keyed like every plugin command. */
export async function uploadPluginMedia(c: Context<AppEnv>): Promise<Response> {
  const installation = installationOf(c);
  const denied = requireCapabilities(installation, ["media:write"]);
  if (denied) return refusalResponse(denied);
  const key = commandKey(c.req.raw.headers);
  if (key instanceof Response) return key;
  const type = (c.req.header("content-type") ?? "").split(";")[0].trim();
  if (type !== "multipart/form-data") {
    return refusalResponse(
      invalid("The body must be multipart/form-data with a file field"),
    );
  }
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > API_UPLOAD_LIMIT + FORM_OVERHEAD_BYTES) {
    return refusalResponse(pluginRefusal(
      "transition_refused",
      `media_too_large: files are at most ${API_UPLOAD_LIMIT} bytes`,
    ));
  }
  const body = new Uint8Array(await c.req.arrayBuffer());
  if (body.length > API_UPLOAD_LIMIT + FORM_OVERHEAD_BYTES) {
    return refusalResponse(pluginRefusal(
      "transition_refused",
      `media_too_large: files are at most ${API_UPLOAD_LIMIT} bytes`,
    ));
  }
  const parsed = await readForm(body, c.req.raw.headers);
  if (!parsed.ok) return refusalResponse(parsed);
  const { kv, clock, db } = c.var.services;
  return await runPluginCommand({
    store: new IdempotencyStore(kv, { clock }),
    installation,
    key,
    method: "POST",
    path: new URL(c.req.url).pathname,
    // What the form says, not its encoding: a retry may choose another multipart boundary.
    rawBody: JSON.stringify([
      parsed.delegationId,
      parsed.altTexts ?? null,
      parsed.folderId ?? null,
      parsed.onDuplicate ?? null,
      parsed.fileName,
      sha256HexSync(parsed.bytes),
    ]),
    async run() {
      const refused = (r: PluginRefusal) => ({
        applied: false,
        response: refusalResponse(r),
      });
      const delegation = await useDelegation(
        db,
        installation,
        parsed.delegationId,
        undefined,
        ["media:write"],
      );
      if (!delegation.ok) return refused(delegation);
      if (!decide(delegation.authority, { action: "media.upload" }).ok) {
        return refused(pluginRefusal(
          "requester_unauthorized",
          "The person this upload is for may not add files to the library",
        ));
      }
      const actor = await snapshotActor(
        db,
        installation.siteId,
        delegation.actor,
      );
      const result = await uploadMedia(
        {
          db,
          storage: mediaStorageOf(c.var.services),
          imageLibrary: c.var.services.config.mediaImageLibrary,
          clock,
          siteId: installation.siteId,
          publicUrl: c.var.services.config.publicUrl,
          keyDigest: null,
        },
        { bytes: parsed.bytes, fileName: parsed.fileName },
        {
          altTexts: parsed.altTexts,
          folderId: parsed.folderId,
          onDuplicate: parsed.onDuplicate,
          limitBytes: apiUploadLimit(
            c.var.services.config.mediaRequestBodyLimitBytes,
          ),
          alsoRecord: (tx, item) =>
            ledgerAuditWriter.write(tx, {
              id: crypto.randomUUID(),
              siteId: installation.siteId,
              actor,
              action: "plugin.media.upload",
              target: { kind: "media", media_id: item.id },
              details: {
                idempotency_key_digest: keyDigest(installation, key),
                kind: item.kind,
                byte_length: item.byte_length,
              },
              at: clock.now(),
            }),
        },
      );
      if (!result.ok) {
        const { ok: _ok, code, ...detail } = result;
        const outcome = REFUSED_AS[code] ?? "transition_refused";
        return {
          applied: false,
          response: outcomeWith(
            outcome,
            `${code}: the library refused the file`,
            { refusal: { code, ...detail } },
          ),
        };
      }
      return {
        applied: true,
        response: outcomeWith(
          "transition_applied",
          result.created ? "Uploaded" : "The library already holds this file",
          { result: { created: result.created, media: result.item } },
        ),
      };
    },
  });
}
