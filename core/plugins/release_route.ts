// POST /api/plugin/v1/releases/commit (spec 1 parts 3.3, 4.1, 4.5 item 7; REL-001, REL-021):
// one same-site publication command of up to 25 changes, checked whole and committed in one
// transaction, or refused whole with nothing changed.
import type { Context } from "hono";
import { z } from "zod";
import { modelValidator } from "../entries/model_validator.ts";
import { runCommandOver } from "../entries/command.ts";
import { publishInScope, unpublishInScope } from "../entries/lifecycle.ts";
import type { LifecycleOutcome, LifecycleResult } from "../entries/types.ts";
import type { AppEnv } from "../web/env.ts";
import {
  outcomeWith,
  type PluginRefusal,
  pluginRefusal,
} from "./api_support.ts";
import { checkTransition, outcomeOfLifecycle } from "./content_api.ts";
import { type ScopedItem, scopedItem } from "./scoped_item.ts";
import type { UsableDelegation } from "./delegations.ts";
import { keyedCommand, refusedCommand } from "./keyed_command.ts";
import { type Capability, LIMITS } from "./protocol.ts";

const versionId = z.uuid().nullable();

/** One change of a release: the transition command of part 2.7 for one item, without its own key. */
const releaseChange = z.strictObject({
  instance_id: z.uuid(),
  kind: z.enum(["publish", "unpublish"]),
  locale: z.string().min(2).max(35).optional(),
  expected_current_version_id: versionId.optional(),
  expected_published_version_id: versionId.optional(),
  expected_workflow_revision: z.number().int().min(0),
}).superRefine((change, ctx) => {
  const pin = change.kind === "publish"
    ? "expected_current_version_id"
    : "expected_published_version_id";
  if (change[pin] === undefined) {
    ctx.addIssue({
      code: "custom",
      path: [pin],
      message: `a ${change.kind} pins ${pin}`,
    });
  }
});

/** The closed release command (Stave's shape; the spec shows none). */
export const releaseCommitSchema = z.strictObject({
  delegation_id: z.string().min(1).max(64),
  changes: z.array(releaseChange).min(1).max(LIMITS.release.max_items),
});

type ReleaseChange = z.output<typeof releaseChange>;

interface Checked {
  change: ReleaseChange;
  item: ScopedItem;
  delegation: UsableDelegation;
}

function atChange(index: number, refusal: PluginRefusal): PluginRefusal {
  return {
    ...refusal,
    message: `Change ${index}: ${refusal.message}`,
    change: index,
  } as PluginRefusal;
}

/** Serves `POST /releases/commit`. */
export async function releaseCommitRoute(
  c: Context<AppEnv>,
): Promise<Response> {
  const { db, clock } = c.var.services;
  return await keyedCommand(
    c,
    (command) => {
      const needed = new Set<Capability>(["workflow:release"]);
      for (const change of command.changes) {
        needed.add(
          change.kind === "publish" ? "workflow:publish" : "workflow:unpublish",
        );
        if (change.locale !== undefined) needed.add("workflow:locale");
      }
      return [...needed];
    },
    releaseCommitSchema,
    async ({ body: command, installation, digest }) => {
      // Every item is read and checked before anything is written.
      const items: ScopedItem[] = [];
      for (const [i, change] of command.changes.entries()) {
        const item = await scopedItem(db, installation, change.instance_id);
        if (!("instance" in item)) return refusedCommand(atChange(i, item));
        items.push(item);
      }
      // A group is moved whole or by distinct languages, never twice in one release.
      const scopes = new Map<string, Set<string>>();
      for (const [i, item] of items.entries()) {
        const taken = scopes.get(item.group.id) ?? new Set<string>();
        const locale = command.changes[i].locale ?? "*";
        if (
          taken.has(locale) || taken.has("*") ||
          (locale === "*" && taken.size > 0)
        ) {
          return refusedCommand(atChange(
            i,
            pluginRefusal(
              "invalid_request",
              "The release moves this item twice: one change per language, or one for the whole item",
            ),
          ));
        }
        taken.add(locale);
        scopes.set(item.group.id, taken);
      }
      // The instances the release takes offline: only these stop counting as dependents.
      const withdrawn = items.flatMap((item, i) => {
        const change = command.changes[i];
        if (change.kind !== "unpublish") return [];
        return item.instances.filter((l) =>
          change.locale === undefined || l.locale === change.locale
        ).map((l) => l.id);
      });
      const ctx = { db, clock, installation, keyDigest: digest };
      const checked: Checked[] = [];
      for (const [i, change] of command.changes.entries()) {
        const result = await checkTransition(ctx, items[i], {
          ...change,
          delegation_id: command.delegation_id,
        }, { dependentsExcept: withdrawn, needs: ["workflow:release"] });
        if (!result.ok) return refusedCommand(atChange(i, result));
        checked.push({ change, item: items[i], delegation: result.delegation });
      }
      const actor = checked[0].delegation.actor;
      const lifecycle = {
        db,
        clock,
        siteId: installation.siteId,
        actor,
        authority: checked[0].delegation.authority,
        validate: modelValidator(),
        trace: {
          idempotency_key_digest: digest,
          protocol_version: String(installation.protocolVersion),
          release: true,
        },
      };
      let failed = -1;
      const outcome = await runCommandOver(lifecycle, async (scope) => {
        // Pins name the state before the release; a group's later languages see the
        // revision its earlier ones moved.
        const bumps = new Map<string, number>();
        const results: LifecycleResult[] = [];
        for (const [i, { change, item }] of checked.entries()) {
          const bumped = bumps.get(item.group.id) ?? 0;
          const revision = change.expected_workflow_revision + bumped;
          const done: LifecycleOutcome = change.kind === "publish"
            ? await publishInScope(lifecycle, scope, {
              group_id: item.group.id,
              locale: change.locale,
              expected_current_version_id: change.expected_current_version_id ??
                null,
              expected_workflow_revision: revision,
            })
            : await unpublishInScope(lifecycle, scope, {
              group_id: item.group.id,
              locale: change.locale,
              expected_published_version_id:
                change.expected_published_version_id ?? null,
              expected_workflow_revision: revision,
            });
          if (!done.ok) {
            failed = i;
            return done;
          }
          bumps.set(item.group.id, bumped + 1);
          results.push(done);
        }
        return { ok: true as const, results };
      }, (r) => r.results.map((x) => x.group_id));
      if (!outcome.ok) {
        return refusedCommand(atChange(
          Math.max(failed, 0),
          pluginRefusal(
            outcomeOfLifecycle(outcome.code),
            `The service refused the release: ${outcome.code}; nothing was changed`,
          ),
        ));
      }
      return {
        applied: true,
        response: outcomeWith(
          "release_applied",
          `${checked.length} changes applied together`,
          {
            result: {
              changes: checked.map(({ change, item }, i) => {
                const r = outcome.results[i];
                const language = change.locale === undefined
                  ? undefined
                  : r.instances.find((l) => l.locale === change.locale);
                return {
                  instance_id: change.instance_id,
                  group_id: item.group.id,
                  kind: change.kind,
                  locale: change.locale ?? null,
                  revision: r.revision,
                  published_version_id: language
                    ? language.published_version_id
                    : r.published_version_id,
                };
              }),
            },
          },
        ),
      };
    },
  );
}
