// Changes a page's address, for both doors that offer it: the Management API's
// `POST /pages/{id}/address` and the admin side's `POST /api/pages/{id}/address` (DLV-013).
import { readGroup } from "../entries/store.ts";
import type {
  LifecycleContext,
  LifecycleRefusal,
  LifecycleResult,
} from "../entries/types.ts";
import { getModel } from "../models/model_reads.ts";
import { isPageField } from "../models/validate_values.ts";
import { setPageAddress } from "./pending_address.ts";

/** One language's new address (null takes it away), pinned to the version read. */
export interface PageAddressChange {
  group_id: string;
  locale: string;
  address: string | null;
  expected_current_version_id: string;
}

/** The address waiting for publication in the version just written. */
export interface WaitingAddress {
  locale: string;
  address: string | null;
  version_id: string;
}

/** The answer of {@link changePageAddress}. */
export type PageAddressOutcome =
  | { ok: true; result: LifecycleResult; pending_address: WaitingAddress }
  | LifecycleRefusal;

/**
 * Writes a new draft version of the page's language recording `address`; the live page keeps
 * its address until that language is published, and publication leaves a 301 from the old one.
 * An entry that is not a page (its model holds no page document) is `not_found`; the other
 * refusals, permissions included, are the lifecycle save's.
 */
export async function changePageAddress(
  ctx: LifecycleContext,
  change: PageAddressChange,
): Promise<PageAddressOutcome> {
  const group = await readGroup(ctx.db, ctx.siteId, change.group_id);
  const model = group
    ? await getModel(
      { db: ctx.db, clock: ctx.clock, siteId: ctx.siteId },
      group.model_id,
    )
    : undefined;
  if (!model?.ok || !model.model.fields.some(isPageField)) {
    return { ok: false, code: "not_found" };
  }
  const result = await setPageAddress(ctx, {
    group_id: change.group_id,
    locale: change.locale,
    address: change.address,
    expected_current_version_id: change.expected_current_version_id,
  });
  if (!result.ok) return result;
  const instance = result.instances.find((i) => i.locale === change.locale);
  return {
    ok: true,
    result,
    pending_address: {
      locale: change.locale,
      address: change.address,
      version_id: instance?.current_version_id ?? result.current_version_id!,
    },
  };
}
