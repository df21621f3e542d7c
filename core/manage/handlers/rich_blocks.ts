// Handler of `GET /rich-blocks` (MPL-001): the site's rich-block registry, the one the public
// `/v1/_rich-blocks` reads, with each block's controls and rules.
import { registeredRichBlocks } from "../../pages/embeds.ts";
import * as contract from "../contract/rich_blocks.ts";
import { defineHandler } from "../handler.ts";

/** `list-rich-blocks`. */
export const listRichBlocks = defineHandler(contract.listRichBlocks, {
  async run(ctx) {
    const registered = await registeredRichBlocks(
      ctx.services.db,
      ctx.site.id,
    );
    const data = registered.map(({ installationId, pluginId, block }) => ({
      installation_id: installationId,
      plugin_id: pluginId,
      type: block.type,
      label: block.label,
      description: block.description ?? null,
      version: block.version,
      inline: block.inline,
      controls: block.controls,
      rules: block.rules,
    }));
    return { body: { data } };
  },
});
