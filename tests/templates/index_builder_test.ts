// The external index builder against the public read API of the demo site: scopes, staged
// generations, cursors forwarded unchanged, whole-build aborts and atomic activation
// (SRCH-034, SRCH-035, SRCH-036, SRCH-037).
import { deepEqual, equal, ok } from "node:assert/strict";
import {
  buildIndex,
  type IndexStore,
  kvIndexStore,
} from "../../services/index_builder/builder.ts";
import { setupDemo } from "../admin/demo_helpers.ts";

const SITE = "http://demo.test";

async function withDemo(
  fn: (api: typeof fetch, store: IndexStore, asked: string[]) => Promise<void>,
) {
  const demo = await setupDemo({ domain: "demo.test" });
  const kv = await Deno.openKv(":memory:");
  try {
    const asked: string[] = [];
    // The public API picks the site by the Host header, as over the network.
    const api: typeof fetch = (input, init) => {
      const url = String(input);
      asked.push(url);
      return Promise.resolve(demo.t.app.request(url, {
        ...init,
        headers: {
          ...(init?.headers as Record<string, string>),
          host: new URL(url).host,
        },
      }));
    };
    await fn(api, kvIndexStore(kv), asked);
  } finally {
    kv.close();
    await demo.t.close();
  }
}

Deno.test("SRCH-034 SRCH-035 SRCH-037: a build crawls every page of each scope into a staged generation, keys documents by site, model, id and served locale, forwards cursors unchanged, then activates", () =>
  withDemo(async (api, store, asked) => {
    equal(await store.active(), null);
    const built = await buildIndex({
      scopes: [
        { site: SITE, model: "posts", locale: "en" },
        { site: SITE, model: "posts", locale: "de" },
        { site: SITE, model: "pages", locale: "en" },
      ],
      store,
      fetch: api,
      pageSize: 1,
    });
    if (!built.ok) throw new Error(JSON.stringify(built));
    equal(await store.active(), built.generation);
    const docs = await store.documents(built.generation);
    equal(docs.length, built.documents);
    ok(docs.length >= 3);
    for (const d of docs) {
      equal(d.key, `demo.test|${d.model}|${d.id}|${d.locale}`);
    }
    // The German scope's items answered in English under the fallback are keyed as English:
    // one document, not a German copy of it.
    equal(new Set(docs.map((d) => d.key)).size, docs.length);
    ok(docs.some((d) => d.model === "posts" && d.locale === "en"));
    // SRCH-035: each cursor went back exactly as the previous page answered it.
    const withCursor = asked.filter((u) => u.includes("cursor="));
    ok(withCursor.length > 0);
    for (const url of withCursor) {
      const params = new URL(url).searchParams;
      deepEqual([...params.keys()], ["locale", "limit", "cursor"]);
    }
    // SRCH-037: a second complete build replaces the first atomically; the old data can go.
    const again = await buildIndex({
      scopes: [{ site: SITE, model: "pages", locale: "en" }],
      store,
      fetch: api,
    });
    if (!again.ok) throw new Error(JSON.stringify(again));
    equal(await store.active(), again.generation);
    equal(
      await store.discard(again.generation),
      false,
      "the active generation is never discarded",
    );
    equal(await store.discard(built.generation), true);
    equal((await store.documents(built.generation)).length, 0);
    ok((await store.documents(again.generation)).length > 0);
    // An empty successful generation is valid.
    const empty = await buildIndex({ scopes: [], store, fetch: api });
    ok(empty.ok);
    equal(await store.active(), empty.ok ? empty.generation : null);
  }));

Deno.test("SRCH-036: an HTTP error, an unknown model, a repeated or missing cursor, an invalid item or a timeout aborts the whole build; the old generation stays", () =>
  withDemo(async (api, store) => {
    const first = await buildIndex({
      scopes: [{ site: SITE, model: "posts", locale: "en" }],
      store,
      fetch: api,
    });
    if (!first.ok) throw new Error(JSON.stringify(first));
    const kept = await store.documents(first.generation);
    const fails = async (
      fetchFn: typeof fetch,
      scopes = [{ site: SITE, model: "posts", locale: "en" }],
      timeoutMs?: number,
    ) => {
      const outcome = await buildIndex({
        scopes,
        store,
        fetch: fetchFn,
        pageSize: 1,
        timeoutMs,
      });
      equal(await store.active(), first.generation);
      deepEqual(await store.documents(first.generation), kept);
      return outcome.ok ? "ok" : outcome.reason;
    };
    // A 500 on the second page, after the first page was written to the staged generation.
    let calls = 0;
    equal(
      await fails((i, n) =>
        ++calls === 2
          ? Promise.resolve(new Response("x", { status: 500 }))
          : api(i, n)
      ),
      "http_error",
    );
    // A scope the API does not serve.
    equal(
      await fails(api, [{ site: SITE, model: "posts", locale: "en" }, {
        site: SITE,
        model: "nothing",
        locale: "en",
      }]),
      "http_error",
    );
    const page = (body: unknown) => () => Promise.resolve(Response.json(body));
    const item = {
      id: "a",
      slug: "a",
      model: "posts",
      locale: "en",
      fields: {},
    };
    equal(
      await fails(
        page({
          data: [item],
          page: { limit: 1, has_more: true, next_cursor: null },
        }),
      ),
      "missing_cursor",
    );
    equal(
      await fails(
        page({
          data: [item],
          page: { limit: 1, has_more: false, next_cursor: "c" },
        }),
      ),
      "inconsistent_cursor",
    );
    let n = 0;
    equal(
      await fails(() =>
        Promise.resolve(
          Response.json({
            data: [{ ...item, id: `i${n++}` }],
            page: { limit: 1, has_more: true, next_cursor: "same" },
          }),
        )
      ),
      "repeated_cursor",
    );
    equal(
      await fails(
        page({
          data: [{ ...item, model: "pages" }],
          page: { limit: 1, has_more: false, next_cursor: null },
        }),
      ),
      "invalid_item",
    );
    equal(
      await fails(
        page({
          data: [item, item],
          page: { limit: 1, has_more: false, next_cursor: null },
        }),
      ),
      "repeated_item",
    );
    equal(await fails(page({ items: [] })), "invalid_response");
    equal(
      await fails(
        (_i, init) =>
          new Promise((_resolve, reject) =>
            init?.signal?.addEventListener(
              "abort",
              () => reject(init.signal!.reason),
            )
          ),
        undefined,
        20,
      ),
      "timeout",
    );
  }));

Deno.test("SRCH-037: of two racing builds only one activates; the other is a stale writer and leaves nothing", () =>
  withDemo(async (api, store) => {
    let raced: Awaited<ReturnType<typeof buildIndex>> | null = null;
    // While the first build writes, a second one runs to completion.
    const racing: IndexStore = {
      ...store,
      async write(generation, docs) {
        await store.write(generation, docs);
        raced ??= await buildIndex({
          scopes: [{ site: SITE, model: "pages", locale: "en" }],
          store,
          fetch: api,
        });
      },
    };
    const slow = await buildIndex({
      scopes: [{ site: SITE, model: "posts", locale: "en" }],
      store: racing,
      fetch: api,
    });
    equal(slow.ok ? "ok" : slow.reason, "stale_writer");
    const fast = raced as unknown as { ok: true; generation: string };
    ok(fast.ok);
    equal(await store.active(), fast.generation);
  }));
