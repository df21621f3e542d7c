// POST /api/plugin/v1/media: media upload for a person goes through the media library.
import type { Context } from "hono";
import {
  installationOf,
  refusalResponse,
  requireCapabilities,
} from "../../../../core/plugins/api_support.ts";
import { outcomeResponse } from "../../../../core/plugins/protocol.ts";
import type { AppEnv } from "../../../../core/web/env.ts";

export const handler = {
  POST(c: Context<AppEnv>) {
    const denied = requireCapabilities(installationOf(c), ["media:write"]);
    if (denied) return refusalResponse(denied);
    // TODO(#11): the media library is another issue; when it lands this seam calls its
    // upload service as the delegated person and audits `plugin.media.upload`.
    return outcomeResponse(
      "temporary_failure",
      "Media upload is not available on this service yet",
    );
  },
};
