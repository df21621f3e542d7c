// Upgrades: identity, version and permissions compared; added capabilities stay ungranted (PLG-005, PLG-006, PLG-009).
import { deepEqual, equal } from "node:assert/strict";
import { compareManifests, grantAfterUpgrade } from "./manifest_diff.ts";
import {
  type ManifestV1,
  type ManifestV1Input,
  parseManifest,
} from "./manifest.ts";
import { fullManifest } from "./_testing.ts";

function parse(input: ManifestV1Input): ManifestV1 {
  const r = parseManifest(input, {
    manifestUrl: "https://plugin.example.com/svc/manifest.json",
  });
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.manifest;
}

Deno.test("compareManifests() reports identity, version, permissions, declarations and URLs", () => {
  const accepted = parse(fullManifest());
  const offeredInput = fullManifest();
  offeredInput.version = "0.2.0";
  offeredInput.capabilities = [
    ...offeredInput.capabilities.filter((c) => c !== "workflow:unpublish"),
    "media:write",
  ];
  offeredInput.operations = offeredInput.operations!.filter((o) =>
    o.id !== "schedule-status"
  );
  offeredInput.operations[0].label = "Scheduled (new)";
  offeredInput.manage_views = [...offeredInput.manage_views!, {
    id: "agenda",
    label: "Agenda",
  }];
  offeredInput.activation_url = "https://plugin.example.com/svc/activate2";
  const diff = compareManifests(accepted, parse(offeredInput));
  equal(diff.identityChanged, false);
  deepEqual(diff.version, { from: "0.1.0", to: "0.2.0" });
  equal(diff.name, null);
  deepEqual(diff.capabilitiesAdded, ["media:write"]);
  deepEqual(diff.capabilitiesRemoved, ["workflow:unpublish"]);
  deepEqual(diff.added, [{ list: "manage_views", id: "agenda" }]);
  deepEqual(diff.removed, [{ list: "operations", id: "schedule-status" }]);
  deepEqual(diff.changed, [{ list: "operations", id: "schedule-column" }]);
  deepEqual(diff.urlsChanged.find((u) => u.path === "activation_url"), {
    path: "activation_url",
    from: "https://plugin.example.com/svc/activate",
    to: "https://plugin.example.com/svc/activate2",
  });
  const renamed = parse({ ...fullManifest(), id: "com.example.other" });
  equal(compareManifests(accepted, renamed).identityChanged, true);
});

Deno.test("grantAfterUpgrade() keeps what is still asked for and never grants what the upgrade adds (PLG-009)", () => {
  deepEqual(
    grantAfterUpgrade(["content:read", "workflow:publish"], {
      capabilities: ["content:read", "media:write"],
    }),
    ["content:read"],
  );
});
