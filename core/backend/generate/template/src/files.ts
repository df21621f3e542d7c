// Private files: GET /api/<model>/files/<field>/<row id> serves the file a media column's
// `<field>_url` names with a private-file marker (`private-file:<key>`), from the folder
// PRIVATE_FILES_DIR; on a rich-text field, `?media=<media id>` serves a file its HTML shows
// (marker in `<field>_media`) and `&variant=thumb|preview` that image's variant. Answers are `private, no-store`; images and PDFs show inline, other files
// download. Without storage: `503 private_files_unavailable`; no row the caller may read, no
// marker or no file: 404.
import { Hono } from "hono";
import type { RouteContext } from "./crud_routes.ts";
import { refuse } from "./errors.ts";
import type { ModelSpec } from "./schema.ts";
import { isId } from "./values.ts";
import {
  isMediaVariant,
  MEDIA_VARIANTS,
  variantCandidates,
} from "./media_variants.ts";

/** The prefix of a private-file marker in a `<field>_url` column. */
export const PRIVATE_FILE_MARKER = "private-file:";

const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/;
const TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  pdf: "application/pdf",
  txt: "text/plain; charset=utf-8",
};

/** The private-file route of one model; `storage` is the files' folder, or null. */
export function fileRoutes(
  model: ModelSpec,
  ctx: RouteContext,
  storage: string | null,
): Hono {
  const app = new Hono();
  app.get("/files/:field/:id", async (c) => {
    const field = c.req.param("field");
    // A media field's file, or (`?media=`) one the HTML of a rich-text field shows.
    const column = model.columns.find((col) =>
      (col.kind === "media_id" || col.kind === "rich_media") &&
      col.field === field
    );
    if (!column) refuse(404, "not_found");
    const mediaId = c.req.query("media");
    const variant = c.req.query("variant");
    if (mediaId !== undefined && column.kind !== "rich_media") {
      refuse(400, "invalid_request", {
        message: "media names a file shown by a rich-text field",
      });
    }
    if (variant !== undefined && mediaId === undefined) {
      refuse(400, "invalid_request", { message: "variant needs media" });
    }
    if (variant !== undefined && !isMediaVariant(variant)) {
      refuse(400, "invalid_request", {
        message: `variant is one of ${MEDIA_VARIANTS.join(", ")}`,
      });
    }
    const caller = await ctx.gate.callerOf(c);
    ctx.gate.admit(caller, model.access.findUnique, "findUnique", model.id);
    if (model.disabled.includes("findUnique")) {
      refuse(404, "operation_unavailable");
    }
    if (storage === null) refuse(503, "private_files_unavailable");
    const id = c.req.param("id");
    // A reader may not read a private field, so for them its file does not exist.
    if (!isId(id) || (column.private && caller.kind !== "service")) {
      refuse(404, "not_found");
    }
    const row = await ctx.db.selectFrom(model.name)
      .select(
        column.kind === "rich_media"
          ? `${column.name} as media`
          : `${column.field}_url as url`,
      ).where("id", "=", id.toLowerCase())
      .executeTakeFirst();
    const url = column.kind === "rich_media"
      ? markerOf(row?.media, mediaId)
      : row?.url as string | null | undefined;
    const key = url?.startsWith(PRIVATE_FILE_MARKER)
      ? url.slice(PRIVATE_FILE_MARKER.length)
      : null;
    if (key === null || !KEY.test(key) || key.includes("..")) {
      refuse(404, "not_found");
    }
    const found = variant === undefined
      ? await readObject(storage, key)
      : await firstObject(storage, variantCandidates(key, variant));
    if (found === null) refuse(404, "not_found");
    const type = TYPES[found.name.split(".").pop()!.toLowerCase()] ??
      "application/octet-stream";
    const inline = type.startsWith("image/") || type === "application/pdf";
    return new Response(found.bytes, {
      headers: {
        "content-type": type,
        "cache-control": "private, no-store",
        "content-disposition": inline
          ? "inline"
          : `attachment; filename="${found.name}"`,
      },
    });
  });
  return app;
}

/** The marker `<field>_media` keeps for `mediaId`, if any. */
function markerOf(map: unknown, mediaId: string | undefined): string | null {
  if (mediaId === undefined || !isId(mediaId)) return null;
  if (!map || typeof map !== "object") return null;
  const value = (map as Record<string, unknown>)[mediaId.toLowerCase()];
  return typeof value === "string" ? value : null;
}

async function readObject(
  storage: string,
  name: string,
): Promise<{ name: string; bytes: Uint8Array<ArrayBuffer> } | null> {
  const bytes = await Deno.readFile(`${storage}/${name}`).catch(() => null);
  return bytes === null ? null : { name, bytes };
}

async function firstObject(storage: string, names: string[]) {
  for (const name of names) {
    const found = await readObject(storage, name);
    if (found) return found;
  }
  return null;
}
