// The renderer names each visitor to the service when it holds the forwarding key, and names
// nobody without it (so the service counts the post against the renderer's own address).
import { deepEqual, equal } from "node:assert/strict";
import { handleFormPost } from "../../services/renderer/forms.ts";
import { loadRendererConfig } from "../../services/renderer/config.ts";

function capture() {
  const sent: Headers[] = [];
  const fetcher = ((_url: string, init?: RequestInit) => {
    sent.push(new Headers(init?.headers));
    return Promise.resolve(Response.json({ ok: true }, { status: 201 }));
  }) as typeof fetch;
  return { sent, fetcher };
}

function browserPost(): Request {
  const form = new FormData();
  form.set("section", "contact");
  form.set("return", "/about");
  form.set("action", "form.submit");
  return new Request("http://site.test/v1/interactions/form.submit", {
    method: "POST",
    body: form,
  });
}

Deno.test("a forwarded form post carries the forwarding key and the visitor's address only when the renderer holds the key", async () => {
  const withKey = capture();
  const answer = await handleFormPost(
    browserPost(),
    "http://api.test",
    withKey.fetcher,
    { key: "k".repeat(40), address: "198.51.100.7" },
  );
  equal(answer.status, 303);
  equal(withKey.sent[0].get("x-stave-forwarding-key"), "k".repeat(40));
  equal(withKey.sent[0].get("x-stave-visitor-address"), "198.51.100.7");

  const without = capture();
  await handleFormPost(browserPost(), "http://api.test", without.fetcher);
  equal(without.sent[0].get("x-stave-forwarding-key"), null);
  equal(without.sent[0].get("x-stave-visitor-address"), null);
});

Deno.test("RENDERER_FORWARDING_KEY is read and needs 32 characters or more", () => {
  deepEqual(
    loadRendererConfig({ RENDERER_FORWARDING_KEY: "k".repeat(32) })
      .forwardingKey,
    "k".repeat(32),
  );
  equal(loadRendererConfig({}).forwardingKey, null);
  let message = "";
  try {
    loadRendererConfig({ RENDERER_FORWARDING_KEY: "k".repeat(31) });
  } catch (error) {
    message = (error as Error).message;
  }
  equal(
    message,
    "Invalid configuration: setting RENDERER_FORWARDING_KEY: expected a secret of 32 or more characters",
  );
});
