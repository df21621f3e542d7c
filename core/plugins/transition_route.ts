// The transition command at the plugin door: capability, key, body, pins, then the one lifecycle service.
import type { Context } from "hono";
import { z } from "zod";
import type { AppEnv } from "../web/env.ts";
import { outcomeWith, pluginRefusal } from "./api_support.ts";
import {
  applyTransition,
  checkTransition,
  type TransitionCommand,
} from "./content_api.ts";
import { scopedItem } from "./scoped_item.ts";
import { keyedCommand, refusedCommand } from "./keyed_command.ts";
import type { Capability } from "./protocol.ts";

const versionId = z.uuid().nullable();

/** The closed transition command of spec 1 part 2.7. */
export const transitionSchema = z.strictObject({
  kind: z.enum(["publish", "unpublish"]),
  expected_current_version_id: versionId.optional(),
  expected_published_version_id: versionId.optional(),
  expected_workflow_revision: z.number().int().min(0),
  delegation_id: z.string().min(1).max(64),
  locale: z.string().min(2).max(35).optional(),
}).superRefine((command, ctx) => {
  if (
    command.kind === "publish" &&
    command.expected_current_version_id === undefined
  ) {
    ctx.addIssue({
      code: "custom",
      path: ["expected_current_version_id"],
      message: "a publish pins expected_current_version_id",
    });
  }
  if (
    command.kind === "unpublish" &&
    command.expected_published_version_id === undefined
  ) {
    ctx.addIssue({
      code: "custom",
      path: ["expected_published_version_id"],
      message: "an unpublish pins expected_published_version_id",
    });
  }
});

const TARGET: Record<TransitionCommand["kind"], string> = {
  publish: "published",
  unpublish: "draft",
};

/** Serves `POST /content/{instance_id}/transitions/{target_state}`. */
export async function transitionRoute(c: Context<AppEnv>): Promise<Response> {
  const target = c.req.param("target_state") ?? "";
  const { db, clock } = c.var.services;
  return await keyedCommand(
    c,
    (command) => {
      if (TARGET[command.kind] !== target) {
        return pluginRefusal(
          "invalid_request",
          `A ${command.kind} moves to "${
            TARGET[command.kind]
          }", not "${target}"`,
        );
      }
      const needed: Capability[] = [
        command.kind === "publish" ? "workflow:publish" : "workflow:unpublish",
      ];
      if (command.locale !== undefined) needed.push("workflow:locale");
      return needed;
    },
    transitionSchema,
    async ({ body, installation, digest }) => {
      const command = body as TransitionCommand;
      const item = await scopedItem(
        db,
        installation,
        c.req.param("instance_id") ?? "",
        { review: true, delegationId: command.delegation_id },
      );
      if (!("instance" in item)) return refusedCommand(item);
      const ctx = { db, clock, installation, keyDigest: digest };
      const checked = await checkTransition(ctx, item, command);
      if (!checked.ok) return refusedCommand(checked);
      const result = await applyTransition(
        ctx,
        item,
        command,
        checked.delegation,
      );
      if (!result.ok) return refusedCommand(result);
      const { ok: _ok, ...facts } = result;
      return {
        applied: true,
        response: outcomeWith(
          "transition_applied",
          `${command.kind} applied`,
          { result: facts },
        ),
      };
    },
  );
}
