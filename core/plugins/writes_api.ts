// Writes a plugin makes for a delegated person: content saves, working drafts and proposals (spec 1 part 4.1).
import type { Context } from "hono";
import { z } from "zod";
import { discardDraft, getEditing, saveDraft } from "../drafts/mod.ts";
import { modelValidator, saveEntry } from "../entries/mod.ts";
import {
  createEntryProposal,
  getEntryProposal,
  listEntryProposals,
} from "../proposals/mod.ts";
import type { AppEnv } from "../web/env.ts";
import {
  dataResponse,
  installationOf,
  outcomeWith,
  parseQuery,
  type PluginRefusal,
  pluginRefusal,
  refusalResponse,
  requireCapabilities,
} from "./api_support.ts";
import { scopedItem } from "./scoped_item.ts";
import { useDelegation } from "./delegations.ts";
import type { Installation } from "./installation_store.ts";
import { keyedCommand, refusedCommand } from "./keyed_command.ts";
import type { Capability, OutcomeCode } from "./protocol.ts";

const WRITE_OUTCOMES: Record<string, OutcomeCode> = {
  not_found: "content_not_found",
  unknown_locale: "locale_unavailable",
  missing_permission: "requester_unauthorized",
  locale_denied: "requester_unauthorized",
  field_denied: "requester_unauthorized",
  requester_unauthorized: "requester_unauthorized",
  site_access_denied: "requester_unauthorized",
  version_conflict: "version_conflict",
  draft_conflict: "draft_conflict",
  draft_held: "draft_conflict",
  workflow_conflict: "workflow_conflict",
  transition_unavailable: "transition_unavailable",
  audit_unavailable: "temporary_failure",
  temporary_failure: "temporary_failure",
  invalid_request: "invalid_request",
  field_not_found: "invalid_request",
  proposal_field_unsupported: "invalid_request",
};

/** Field problems the protocol answers by their own outcome code (spec 1 part 7). */
const FIELD_OUTCOMES: ReadonlySet<string> = new Set([
  "rich_block_unregistered",
  "rich_block_version_unknown",
  "rich_block_values_invalid",
]);

function writeRefusal(
  code: string,
  errors: readonly { code: string; path: string; message: string }[] = [],
): PluginRefusal {
  const named = errors.find((e) => FIELD_OUTCOMES.has(e.code));
  if (code === "field_validation_failed" && named) {
    return pluginRefusal(named.code as OutcomeCode, named.message);
  }
  const outcome = WRITE_OUTCOMES[code] ?? "transition_refused";
  return pluginRefusal(outcome, `The service refused the write: ${code}`);
}

interface Delegated {
  installation: Installation;
  item: Exclude<Awaited<ReturnType<typeof scopedItem>>, PluginRefusal>;
  delegation: Extract<
    Awaited<ReturnType<typeof useDelegation>>,
    { ok: true }
  >;
}

async function delegatedItem(
  c: Context<AppEnv>,
  instanceId: string,
  delegationId: string,
  needs: readonly string[],
): Promise<Delegated | PluginRefusal> {
  const installation = installationOf(c);
  const item = await scopedItem(c.var.services.db, installation, instanceId);
  if (!("instance" in item)) return item;
  const delegation = await useDelegation(
    c.var.services.db,
    installation,
    delegationId,
    item.group,
    needs,
  );
  if (!delegation.ok) return delegation;
  return { installation, item, delegation };
}

/** Runs a keyed write after the capability check and body parse. */
function keyedWrite<S extends z.ZodType>(
  c: Context<AppEnv>,
  needed: Capability[],
  schema: S,
  run: (body: z.output<S>, digest: string) => Promise<Response | PluginRefusal>,
  options: { successCode?: OutcomeCode } = {},
): Promise<Response> {
  void options;
  return keyedCommand(c, needed, schema, async ({ body, digest }) => {
    const answer = await run(body, digest);
    return answer instanceof Response
      ? { applied: true, response: answer }
      : refusedCommand(answer);
  });
}

const saveBody = z.strictObject({
  delegation_id: z.string().min(1).max(64),
  expected_current_version_id: z.uuid().nullable(),
  fields: z.record(z.string(), z.unknown()),
});

/** `PUT /content/{instance_id}`: a new version of that language for the person, pinned. */
export function savePluginContent(c: Context<AppEnv>): Promise<Response> {
  return keyedWrite(c, ["content:write"], saveBody, async (body, digest) => {
    const found = await delegatedItem(
      c,
      c.req.param("instance_id") ?? "",
      body.delegation_id,
      ["content:write"],
    );
    if ("code" in found) return found;
    const { installation, item, delegation } = found;
    const saved = await saveEntry({
      db: c.var.services.db,
      clock: c.var.services.clock,
      siteId: installation.siteId,
      actor: delegation.actor,
      authority: delegation.authority,
      validate: modelValidator(),
      trace: {
        idempotency_key_digest: digest,
        protocol_version: String(installation.protocolVersion),
      },
    }, {
      group_id: item.group.id,
      locale: item.instance.locale,
      fields: body.fields,
      expected_current_version_id: body.expected_current_version_id,
    });
    if (!saved.ok) {
      return writeRefusal(saved.code, "errors" in saved ? saved.errors : []);
    }
    const instance = saved.instances.find((i) =>
      i.locale === item.instance.locale
    );
    return outcomeWith("transition_applied", "Saved", {
      result: {
        instance_id: item.instance.id,
        group_id: saved.group_id,
        revision: saved.revision,
        current_version_id: instance?.current_version_id ?? null,
        published_version_id: instance?.published_version_id ?? null,
      },
    });
  });
}

const draftBody = z.strictObject({
  delegation_id: z.string().min(1).max(64),
  instance_id: z.uuid(),
  fields: z.record(z.string(), z.unknown()),
  base_version_id: z.uuid().nullable(),
  expected_revision: z.number().int().min(1).nullable(),
});

/** `PUT /drafts`: writes the delegated person's working draft of one language. */
export function putDraft(c: Context<AppEnv>): Promise<Response> {
  return keyedWrite(c, ["draft:write"], draftBody, async (body) => {
    const found = await delegatedItem(c, body.instance_id, body.delegation_id, [
      "draft:write",
    ]);
    if ("code" in found) return found;
    const { installation, item, delegation } = found;
    const saved = await saveDraft({
      db: c.var.services.db,
      clock: c.var.services.clock,
      siteId: installation.siteId,
      actor: delegation.actor,
    }, {
      group_id: item.group.id,
      locale: item.instance.locale,
      fields: body.fields,
      base_version_id: body.base_version_id,
      expected_revision: body.expected_revision,
    });
    if (!saved.ok) return writeRefusal(saved.code);
    return outcomeWith("transition_applied", "Draft saved", {
      result: saved.draft,
    });
  });
}

const discardBody = z.strictObject({
  delegation_id: z.string().min(1).max(64),
  instance_id: z.uuid(),
  expected_revision: z.number().int().min(1).optional(),
});

/** `POST /drafts/discard`: discards that person's draft. */
export function postDiscardDraft(c: Context<AppEnv>): Promise<Response> {
  return keyedWrite(c, ["draft:write"], discardBody, async (body) => {
    const found = await delegatedItem(c, body.instance_id, body.delegation_id, [
      "draft:write",
    ]);
    if ("code" in found) return found;
    const { installation, item, delegation } = found;
    const done = await discardDraft({
      db: c.var.services.db,
      clock: c.var.services.clock,
      siteId: installation.siteId,
      actor: delegation.actor,
    }, {
      group_id: item.group.id,
      locale: item.instance.locale,
      expected_revision: body.expected_revision,
    });
    if (!done.ok) return writeRefusal(done.code);
    return outcomeWith("transition_applied", "Draft discarded", {
      result: { discarded: done.discarded },
    });
  });
}

/** `GET /drafts?delegation_id=&instance_id=`: the delegated person's own draft (never another's). */
export async function getDraft(c: Context<AppEnv>): Promise<Response> {
  const installation = installationOf(c);
  const denied = requireCapabilities(installation, ["content:read"]);
  if (denied) return refusalResponse(denied);
  const query = parseQuery(c, ["delegation_id", "instance_id"]);
  if (!query.ok) return refusalResponse(query);
  const { delegation_id, instance_id } = query.value;
  if (!delegation_id || !instance_id) {
    return refusalResponse(pluginRefusal(
      "invalid_request",
      "delegation_id and instance_id are required",
    ));
  }
  const found = await delegatedItem(c, instance_id, delegation_id, [
    "content:read",
  ]);
  if ("code" in found) return refusalResponse(found);
  const editing = await getEditing({
    db: c.var.services.db,
    clock: c.var.services.clock,
    siteId: installation.siteId,
    actor: found.delegation.actor,
  }, { group_id: found.item.group.id, locale: found.item.instance.locale });
  if (!editing.ok) return refusalResponse(writeRefusal(editing.code));
  return dataResponse({
    instance_id,
    locale: editing.locale,
    draft: editing.draft,
  });
}

const proposalBody = z.strictObject({
  delegation_id: z.string().min(1).max(64),
  base_version_id: z.uuid(),
  fields: z.record(z.string(), z.unknown()),
  note: z.string().max(2000).optional(),
});

/** `POST /content/{instance_id}/proposals`: a proposal recorded with the plugin's name and the person's email. */
export function postProposal(c: Context<AppEnv>): Promise<Response> {
  return keyedWrite(c, ["content:propose"], proposalBody, async (body) => {
    const found = await delegatedItem(
      c,
      c.req.param("instance_id") ?? "",
      body.delegation_id,
      ["content:propose"],
    );
    if ("code" in found) return found;
    const { installation, item, delegation } = found;
    const made = await createEntryProposal({
      db: c.var.services.db,
      clock: c.var.services.clock,
      siteId: installation.siteId,
      actor: delegation.actor,
    }, {
      group_id: item.group.id,
      base_version_id: body.base_version_id,
      fields: body.fields,
      note: body.note,
    });
    if (!made.ok) return writeRefusal(made.code);
    return outcomeWith("transition_applied", "Proposal created", {
      result: made.proposal,
    }, 201);
  });
}

/** `GET /content/{instance_id}/proposals?delegation_id=`: that item's proposals the person may read. */
export async function listProposals(c: Context<AppEnv>): Promise<Response> {
  const installation = installationOf(c);
  const denied = requireCapabilities(installation, ["content:read"]);
  if (denied) return refusalResponse(denied);
  const query = parseQuery(c, ["delegation_id", "state"]);
  if (!query.ok) return refusalResponse(query);
  if (!query.value.delegation_id) {
    return refusalResponse(
      pluginRefusal("invalid_request", "delegation_id is required"),
    );
  }
  const found = await delegatedItem(
    c,
    c.req.param("instance_id") ?? "",
    query.value.delegation_id,
    ["content:read"],
  );
  if ("code" in found) return refusalResponse(found);
  const listed = await listEntryProposals({
    db: c.var.services.db,
    clock: c.var.services.clock,
    siteId: installation.siteId,
    actor: found.delegation.actor,
  }, { group_id: found.item.group.id, state: query.value.state });
  if (!listed.ok) return refusalResponse(writeRefusal(listed.code));
  return dataResponse(listed.proposals);
}

/** `GET /proposals/{id}?delegation_id=`: one proposal in scope. */
export async function readProposal(c: Context<AppEnv>): Promise<Response> {
  const installation = installationOf(c);
  const denied = requireCapabilities(installation, ["content:read"]);
  if (denied) return refusalResponse(denied);
  const query = parseQuery(c, ["delegation_id"]);
  if (!query.ok) return refusalResponse(query);
  if (!query.value.delegation_id) {
    return refusalResponse(
      pluginRefusal("invalid_request", "delegation_id is required"),
    );
  }
  const delegation = await useDelegation(
    c.var.services.db,
    installation,
    query.value.delegation_id,
    undefined,
    ["content:read"],
  );
  if (!delegation.ok) return refusalResponse(delegation);
  const got = await getEntryProposal({
    db: c.var.services.db,
    clock: c.var.services.clock,
    siteId: installation.siteId,
    actor: delegation.actor,
  }, c.req.param("id") ?? "");
  if (!got.ok) return refusalResponse(writeRefusal(got.code));
  if (!installation.modelIds.includes(got.proposal.model_id)) {
    return refusalResponse(
      pluginRefusal("content_not_found", "No such content in scope"),
    );
  }
  if (
    delegation.groupId !== null && delegation.groupId !== got.proposal.group_id
  ) {
    return refusalResponse(pluginRefusal(
      "requester_unauthorized",
      "The delegation is bound to another item's translation group",
    ));
  }
  return dataResponse(got.proposal);
}
