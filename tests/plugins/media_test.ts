// POST /api/plugin/v1/media: a plugin uploads a file for a delegated person through the library's
// one upload service, keyed, audited `plugin.media.upload`, refusals by name with nothing stored
// (spec 1 parts 2.9 and 4.1; PAPI, AUD rows; MED-006, MED-010, MED-013 through the plugin door).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { pngClaiming } from "../../core/media/png.ts";
import { withPluginWorld } from "./world.ts";

const PNG = await Deno.readFile(
  new URL("../../core/sites/demo_media/sunrise.png", import.meta.url),
);

function form(
  fields: Record<string, string>,
  file: { bytes: Uint8Array; name: string } | null = {
    bytes: PNG,
    name: "sunrise.png",
  },
): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  if (file) {
    f.append(
      "file",
      new File([file.bytes as Uint8Array<ArrayBuffer>], file.name),
    );
  }
  return f;
}

Deno.test("a plugin uploads an image for the delegated person: stored once per key, replayed, audited as the plugin acting for that person (PAPI media, PAPI-024, AUD-001, AUD-009)", () =>
  withPluginWorld(async (w) => {
    w.plugin.behaviour.capabilities = [
      ...w.plugin.behaviour.capabilities,
      "media:write",
    ];
    const id = await w.install();
    const delegation = await w.delegate(id);
    const body = form({
      delegation_id: delegation,
      alt_texts: JSON.stringify({ en: "A sunrise" }),
    });
    const res = await w.plugin.api(id, "/media", { body, key: "upload-1" });
    equal(res.status, 200);
    const answer = await res.json();
    equal(answer.outcome.code, "transition_applied");
    equal(answer.result.created, true);
    const media = answer.result.media;
    equal(media.kind, "image");
    equal(media.file_name, "sunrise.png");
    deepEqual(media.alt_texts, { en: "A sunrise" });
    ok(media.width > 0 && media.height > 0, "dimensions from the header");

    // The same key and body: the first result, and still one file.
    const again = await w.plugin.api(id, "/media", { body, key: "upload-1" });
    const replayed = await again.json();
    equal(replayed.outcome.code, "idempotent_replay");
    equal(replayed.result.media.id, media.id);
    // The same key with other values is another request.
    const reusedKey = await w.plugin.api(id, "/media", {
      body: form({ delegation_id: delegation, alt_texts: '{"en":"Dawn"}' }),
      key: "upload-1",
    });
    equal(reusedKey.status, 409);
    equal((await reusedKey.json()).outcome.code, "idempotency_key_reused");
    const rows = await w.services.db.selectFrom("media_files").select("id")
      .where("site_id", "=", w.siteId).execute();
    deepEqual(rows.map((r) => r.id), [media.id]);

    const audit = await w.services.db.selectFrom("audit_entries").selectAll()
      .where("site_id", "=", w.siteId)
      .where("action", "=", "plugin.media.upload").execute();
    equal(audit.length, 1);
    const actor = (typeof audit[0].actor === "string"
      ? JSON.parse(audit[0].actor)
      : audit[0].actor) as Record<string, unknown>;
    equal(actor.kind, "plugin");
    equal(actor.installation_id, id);
    equal(actor.person_id, w.adminId);
    const target = (typeof audit[0].target === "string"
      ? JSON.parse(audit[0].target)
      : audit[0].target) as Record<string, unknown>;
    deepEqual(target, { kind: "media", media_id: media.id });
    ok(!JSON.stringify(audit[0]).includes("upload-1"), "never the key itself");

    // The same bytes under another key: the library's duplicate rule, then its choices.
    const duplicate = await w.plugin.api(id, "/media", {
      body: form({ delegation_id: delegation }),
      key: "upload-2",
    });
    equal(duplicate.status, 422);
    const refused = await duplicate.json();
    equal(refused.outcome.code, "transition_refused");
    match(refused.outcome.message, /^media_duplicate:/);
    equal(refused.refusal.code, "media_duplicate");
    equal(refused.refusal.existing.id, media.id);
    const reused = await (await w.plugin.api(id, "/media", {
      body: form({ delegation_id: delegation, on_duplicate: "use_existing" }),
      key: "upload-3",
    })).json();
    equal(reused.outcome.code, "transition_applied");
    equal(reused.result.created, false);
    equal(reused.result.media.id, media.id);
  }));

Deno.test("plugin uploads are refused by name and store nothing: a program, an unknown field, JSON, no key, a bad delegation, an unknown language, a person who may not upload (PAPI media, MED-006)", () =>
  withPluginWorld(async (w) => {
    w.plugin.behaviour.capabilities = [
      ...w.plugin.behaviour.capabilities,
      "media:write",
    ];
    const id = await w.install();
    const delegation = await w.delegate(id);
    const outcome = async (res: Response) => {
      const body = await res.json();
      return { status: res.status, code: body.outcome.code, body };
    };
    const program = await outcome(
      await w.plugin.api(id, "/media", {
        body: form({ delegation_id: delegation }, {
          bytes: new TextEncoder().encode("#!/bin/sh\necho hi\n"),
          name: "photo.png",
        }),
        key: "k1",
      }),
    );
    equal(program.status, 422);
    equal(program.body.refusal.code, "executable_file");
    // A header over the pixel ceiling (issue 39 item 3).
    const bomb = await outcome(
      await w.plugin.api(id, "/media", {
        body: form({ delegation_id: delegation }, {
          bytes: pngClaiming(100_000, 100_000),
          name: "bomb.png",
        }),
        key: "k-bomb",
      }),
    );
    equal(bomb.body.refusal.code, "unsupported_media_type");
    equal(bomb.body.refusal.reason, "too_many_pixels");
    const unknownField = await outcome(
      await w.plugin.api(id, "/media", {
        body: form({ delegation_id: delegation, title: "x" }),
        key: "k2",
      }),
    );
    deepEqual([unknownField.status, unknownField.code], [
      400,
      "invalid_request",
    ]);
    const noFile = await outcome(
      await w.plugin.api(id, "/media", {
        body: form({ delegation_id: delegation }, null),
        key: "k3",
      }),
    );
    equal(noFile.code, "invalid_request");
    const asJson = await outcome(
      await w.plugin.api(id, "/media", {
        body: { delegation_id: delegation },
        key: "k4",
      }),
    );
    equal(asJson.code, "invalid_request");
    const noKey = await outcome(
      await w.plugin.api(id, "/media", {
        body: form({ delegation_id: delegation }),
      }),
    );
    equal(noKey.code, "invalid_request");
    const badDelegation = await outcome(
      await w.plugin.api(id, "/media", {
        body: form({ delegation_id: crypto.randomUUID() }),
        key: "k5",
      }),
    );
    deepEqual([badDelegation.status, badDelegation.code], [
      403,
      "requester_unauthorized",
    ]);
    const badAlt = await outcome(
      await w.plugin.api(id, "/media", {
        body: form({ delegation_id: delegation, alt_texts: "[1]" }),
        key: "k6",
      }),
    );
    equal(badAlt.code, "invalid_request");
    const unknownLanguage = await outcome(
      await w.plugin.api(id, "/media", {
        body: form({
          delegation_id: delegation,
          alt_texts: JSON.stringify({ fr: "Lever" }),
        }),
        key: "k7",
      }),
    );
    deepEqual([unknownLanguage.status, unknownLanguage.code], [
      422,
      "locale_unavailable",
    ]);

    // The person loses the right to upload: the delegation no longer carries it.
    const member = await w.services.db.selectFrom("site_members")
      .select("role_id").where("user_id", "=", w.adminId)
      .where("site_id", "=", w.siteId).executeTakeFirstOrThrow();
    const role = await w.services.db.selectFrom("roles").select("permissions")
      .where("id", "=", member.role_id).executeTakeFirstOrThrow();
    const permissions = (typeof role.permissions === "string"
      ? JSON.parse(role.permissions)
      : role.permissions) as { system: string[] };
    permissions.system = permissions.system.filter((p) =>
      p !== "media:upload"
    );
    await w.services.db.updateTable("roles").set({
      permissions: JSON.stringify(permissions),
    }).where("id", "=", member.role_id).execute();
    const lost = await outcome(
      await w.plugin.api(id, "/media", {
        body: form({ delegation_id: delegation }),
        key: "k8",
      }),
    );
    deepEqual([lost.status, lost.code], [403, "requester_unauthorized"]);

    const stored = await w.services.db.selectFrom("media_files").select("id")
      .where("site_id", "=", w.siteId).execute();
    equal(stored.length, 0, "no refused upload left a file");
  }));

Deno.test("an installation granted no media:write cannot upload (PAPI media, capability_refused)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const delegation = await w.delegate(id);
    const res = await w.plugin.api(id, "/media", {
      body: form({ delegation_id: delegation }),
      key: "k1",
    });
    equal(res.status, 403);
    equal((await res.json()).outcome.code, "capability_refused");
  }));
