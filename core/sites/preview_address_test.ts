// The site's front-end preview address: which addresses are accepted, at the length limit's edge.
import { equal, ok } from "node:assert/strict";
import {
  PREVIEW_ADDRESS_MAX,
  previewAddressProblem,
} from "./preview_address.ts";

Deno.test("previewAddressProblem() accepts https addresses and http on this machine only", () => {
  equal(previewAddressProblem("https://www.example.com/api/preview"), null);
  equal(previewAddressProblem("https://www.example.com"), null);
  equal(previewAddressProblem("http://localhost:3000/preview"), null);
  equal(previewAddressProblem("http://127.0.0.1:3000/preview"), null);
  equal(previewAddressProblem("http://[::1]:3000/preview"), null);
  ok(previewAddressProblem("http://www.example.com/preview"));
  ok(previewAddressProblem("javascript:alert(1)"));
  ok(previewAddressProblem("ftp://example.com/x"));
  ok(previewAddressProblem("/api/preview"));
  ok(previewAddressProblem("https://user:pass@example.com/preview"));
  // The token is posted; an address with a query or fragment could carry it elsewhere.
  ok(previewAddressProblem("https://example.com/preview?token=x"));
  ok(previewAddressProblem("https://example.com/preview?"));
  ok(previewAddressProblem("https://example.com/preview#x"));
});

Deno.test("previewAddressProblem() accepts 2,048 characters and refuses 2,049", () => {
  const head = "https://example.com/";
  const longest = head + "a".repeat(PREVIEW_ADDRESS_MAX - head.length);
  equal(longest.length, 2048);
  equal(previewAddressProblem(longest), null);
  ok(previewAddressProblem(longest + "a"));
});
