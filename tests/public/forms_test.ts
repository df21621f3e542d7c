// Visitor form submissions on the demo site: the closed envelope, honeypot, keys, consent, files,
// abuse limits, private attachments and the admin page (spec 3 part 2.2; FORM-001 to FORM-012).
import { deepEqual, equal, ok } from "node:assert/strict";
import { sql } from "kysely";
import { publishEntry, saveEntry } from "../../core/entries/mod.ts";
import {
  FORM_LIMITS,
  formAttachmentStore,
  readAttachment,
} from "../../core/forms/mod.ts";
import { runDailyMaintenance } from "../../core/maintenance.ts";
import { CookieJar, request, signInAs } from "../admin/helpers.ts";
import { openPublicWorld, type PublicWorld } from "./helpers.ts";

type Json = Record<string, unknown>;

const KEY = (n: number | string) => `visitor-key-${String(n).padStart(4, "0")}`;

async function post(
  w: PublicWorld,
  body: BodyInit,
  type: string | null,
  address = "203.0.113.7",
): Promise<Response> {
  const headers: Record<string, string> = { host: "localhost" };
  if (type) headers["content-type"] = type;
  return await w.app.request("/v1/interactions/form.submit", {
    method: "POST",
    headers,
    body,
  }, { remoteAddr: { transport: "tcp", hostname: address, port: 1 } });
}

const json = (w: PublicWorld, body: unknown, address?: string) =>
  post(w, JSON.stringify(body), "application/json", address);

async function stored(w: PublicWorld): Promise<number> {
  const r = await sql<
    { n: number }
  >`select count(*)::int as n from form_submissions`
    .execute(w.services.db);
  return r.rows[0].n;
}

async function attachmentsStored(w: PublicWorld): Promise<number> {
  const r = await sql<
    { n: number }
  >`select count(*)::int as n from form_attachments`
    .execute(w.services.db);
  return r.rows[0].n;
}

/** A published page with one form holding a file field. */
async function filePage(w: PublicWorld): Promise<string> {
  const saved = await saveEntry(w.ctx(), {
    model_id: await w.modelId("pages"),
    locale: "en",
    slug: "apply",
    fields: {
      title: "Apply",
      slides: {
        format: 2,
        sections: [{
          id: "apply",
          type: "form",
          variant: "default",
          layout: "default",
          component: null,
        }],
        props: {
          apply: {
            fields: [
              {
                name: "name",
                kind: "text",
                label: "Name",
                required: true,
                help: null,
                options: [],
              },
              {
                name: "cv",
                kind: "file",
                label: "CV",
                required: false,
                help: null,
                options: [],
                accept: [".pdf", "image/png"],
                max_files: 2,
                max_bytes: 1000,
              },
            ],
            submit_label: "Apply",
            success_text: "Received",
          },
        },
      },
    },
    expected_current_version_id: null,
  });
  ok(saved.ok, JSON.stringify(saved));
  ok(
    (await publishEntry(w.ctx(), {
      group_id: saved.group_id,
      expected_current_version_id: saved.current_version_id,
      expected_workflow_revision: saved.revision,
    })).ok,
  );
  return saved.group_id;
}

function multipart(
  envelope: Json,
  scalars: Record<string, string>,
  files: { field: string; name: string; type: string; size: number }[],
): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(envelope)) form.set(k, String(v));
  for (const [k, v] of Object.entries(scalars)) form.set(k, v);
  for (const f of files) {
    form.append(
      `files.${f.field}`,
      new File([new Uint8Array(f.size).fill(65)], f.name, { type: f.type }),
    );
  }
  return form;
}

Deno.test("POST /v1/interactions/form.submit on the demo's contact form (FORM-001 to FORM-012)", async (t) => {
  const w = await openPublicWorld();
  try {
    const home = await w.groupId("pages", "home");
    const envelope = (over: Json = {}) => ({
      action: "form.submit",
      page: home,
      locale: "en",
      section: "contact",
      key: KEY(1),
      values: {
        name: "Ada",
        email: "ada@example.com",
        topic: "Sales",
        message: "Hello",
      },
      consent: true,
      website: "",
      ...over,
    });

    await t.step(
      "a valid submission is stored once; a replay answers the first receipt; other values under the key are refused (FORM-004)",
      async () => {
        const first = await json(w, envelope());
        equal(first.status, 201, await first.clone().text());
        const receipt = (await first.json()).data;
        equal(receipt.message, "Thank you. We will be in touch soon.");
        const again = await json(w, envelope());
        equal(again.status, 200);
        deepEqual((await again.json()).data, receipt);
        const other = await json(
          w,
          envelope({ values: { ...envelope().values, message: "Changed" } }),
        );
        equal(other.status, 409);
        equal((await other.json()).error.code, "form_key_reused");
        equal(await stored(w), 1);
        const row = await sql<
          { values: Json }
        >`select values from form_submissions`
          .execute(w.services.db);
        deepEqual(row.rows[0].values, envelope().values);
      },
    );

    await t.step(
      "the envelope is closed and values follow the form (FORM-002, FORM-005, FORM-006)",
      async () => {
        const cases: [Json, string][] = [
          [{ ...envelope({ key: KEY(2) }), extra: 1 }, "interaction_invalid"],
          [
            envelope({ key: KEY(3), values: { name: "A" } }),
            "interaction_invalid",
          ],
          [envelope({ key: KEY(4), consent: false }), "interaction_invalid"],
          [
            envelope({
              key: KEY(5),
              values: { ...envelope().values, topic: "Other" },
            }),
            "interaction_invalid",
          ],
          [
            envelope({
              key: KEY(6),
              values: { ...envelope().values, email: "mailto:x@y.de" },
            }),
            "interaction_invalid",
          ],
          [
            envelope({
              key: KEY(7),
              values: { ...envelope().values, age: "9" },
            }),
            "interaction_invalid",
          ],
          [envelope({ key: "k".repeat(15) }), "interaction_invalid"],
          [envelope({ key: "k".repeat(65) }), "interaction_invalid"],
        ];
        for (const [body, code] of cases) {
          const res = await json(w, body);
          equal(res.status, 400, JSON.stringify(body));
          equal((await res.json()).error.code, code);
        }
        // PAGE-043: the demo form states a consent, so a visitor who does not accept it (or
        // says nothing) is refused at `consent`; the unconsented cases above stored nothing.
        for (const consent of [false, undefined]) {
          const res = await json(w, envelope({ key: KEY(4), consent }));
          equal(res.status, 400);
          deepEqual(
            ((await res.json()).error.problems as Json[]).map((p) => p.path),
            ["consent"],
          );
        }
        equal(
          (await json(w, envelope({ key: KEY(8), section: "hero" }))).status,
          404,
        );
        equal(await stored(w), 1);
        // Key length edges: 16 and 64 characters are accepted.
        equal((await json(w, envelope({ key: "a".repeat(16) }))).status, 201);
        equal((await json(w, envelope({ key: "b".repeat(64) }))).status, 201);
        equal(await stored(w), 3);
      },
    );

    await t.step(
      "a filled honeypot answers a receipt and stores nothing (FORM-003)",
      async () => {
        const res = await json(
          w,
          envelope({ key: KEY(9), website: "spam.example" }),
        );
        equal(res.status, 201);
        ok((await res.json()).data.id);
        equal(await stored(w), 3);
      },
    );

    await t.step(
      "one address is throttled; others are not (abuse limits)",
      async () => {
        const address = "198.51.100.9";
        for (let i = 0; i < FORM_LIMITS.perAddress; i++) {
          equal(
            (await json(w, envelope({ key: KEY(`f${i}`) }), address)).status,
            201,
          );
        }
        const over = await json(w, envelope({ key: KEY("over") }), address);
        equal(over.status, 429);
        ok(Number(over.headers.get("retry-after")) >= 1);
        equal(
          (await json(w, envelope({ key: KEY("other") }), "198.51.100.10"))
            .status,
          201,
        );
        w.clock.advance(FORM_LIMITS.windowMs);
        equal(
          (await json(w, envelope({ key: KEY("later") }), address)).status,
          201,
        );
      },
    );

    const apply = await filePage(w);
    const fileEnvelope = (key: string) => ({
      action: "form.submit",
      page: apply,
      locale: "en",
      section: "apply",
      key,
    });

    await t.step(
      "multipart submissions carry files within the field's limits (FORM-007, FORM-008, FORM-009)",
      async () => {
        const before = await stored(w);
        // PAGE-043: this form's consent is null, so a submission without consent is taken.
        const ok2 = await post(
          w,
          multipart(fileEnvelope(KEY("m1")), { "values.name": "Ada" }, [
            {
              field: "cv",
              name: "cv.pdf",
              type: "application/pdf",
              size: 1000,
            },
            { field: "cv", name: "photo.png", type: "image/png", size: 10 },
          ]),
          null,
          "192.0.2.1",
        );
        equal(ok2.status, 201, await ok2.clone().text());
        equal(await attachmentsStored(w), 2);
        const refusals: [FormData, number][] = [
          [
            multipart(fileEnvelope(KEY("m2")), { "values.name": "Ada" }, [
              { field: "cv", name: "a.pdf", type: "application/pdf", size: 1 },
              { field: "cv", name: "b.pdf", type: "application/pdf", size: 1 },
              { field: "cv", name: "c.pdf", type: "application/pdf", size: 1 },
            ]),
            400,
          ],
          [
            multipart(fileEnvelope(KEY("m3")), { "values.name": "Ada" }, [
              {
                field: "cv",
                name: "big.pdf",
                type: "application/pdf",
                size: 1001,
              },
            ]),
            400,
          ],
          [
            multipart(fileEnvelope(KEY("m4")), { "values.name": "Ada" }, [
              { field: "cv", name: "cv.jpg", type: "image/jpeg", size: 10 },
            ]),
            400,
          ],
          [
            multipart(fileEnvelope(KEY("m5")), { "values.name": "Ada" }, [
              {
                field: "cv",
                name: "run.sh",
                type: "application/pdf",
                size: 10,
              },
            ]),
            400,
          ],
          [
            multipart(fileEnvelope(KEY("m6")), { "values.name": "Ada" }, [
              { field: "photo", name: "a.png", type: "image/png", size: 10 },
            ]),
            400,
          ],
          [
            multipart(fileEnvelope(KEY("m7")), {
              "values.name": "x".repeat(FORM_LIMITS.scalarBytes + 1),
            }, []),
            413,
          ],
        ];
        for (const [form, status] of refusals) {
          equal((await post(w, form, null, "192.0.2.2")).status, status);
        }
        equal(
          (await post(
            w,
            multipart(fileEnvelope(KEY("m8")), {
              "values.name": "x".repeat(FORM_LIMITS.scalarBytes),
            }, []),
            null,
            "192.0.2.3",
          )).status,
          201,
        );
        equal(await stored(w), before + 2);
        equal(await attachmentsStored(w), 2);
        const huge = await post(
          w,
          "x",
          "multipart/form-data; boundary=x",
        );
        equal(huge.status, 400);
      },
    );

    await t.step(
      "a file field without limits takes one file of up to 5242880 bytes from the catalogue (PAGE-042)",
      async () => {
        const saved = await saveEntry(w.ctx(), {
          model_id: await w.modelId("pages"),
          locale: "en",
          slug: "upload",
          fields: {
            title: "Upload",
            slides: {
              format: 2,
              sections: [{
                id: "upload",
                type: "form",
                variant: "default",
                layout: "default",
                component: null,
              }],
              props: {
                upload: {
                  fields: [{
                    name: "doc",
                    kind: "file",
                    label: "Document",
                    required: true,
                    help: null,
                    options: [],
                  }],
                  submit_label: "Send",
                  success_text: "Received",
                },
              },
            },
          },
          expected_current_version_id: null,
        });
        ok(saved.ok, JSON.stringify(saved));
        ok(
          (await publishEntry(w.ctx(), {
            group_id: saved.group_id,
            expected_current_version_id: saved.current_version_id,
            expected_workflow_revision: saved.revision,
          })).ok,
        );
        const send = async (
          key: string,
          files: { name: string; type: string; size: number }[],
        ) =>
          (await post(
            w,
            multipart(
              {
                action: "form.submit",
                page: saved.group_id,
                locale: "en",
                section: "upload",
                key,
              },
              {},
              files.map((f) => ({ field: "doc", ...f })),
            ),
            null,
            "192.0.2.20",
          )).status;
        const before = await stored(w);
        const max = 5_242_880;
        equal(
          await send(KEY("d1"), [
            { name: "a.pdf", type: "application/pdf", size: max },
          ]),
          201,
        );
        equal(
          await send(KEY("d2"), [
            {
              name: "a.docx",
              type:
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
              size: 1,
            },
          ]),
          201,
        );
        equal(
          await send(KEY("d3"), [
            { name: "a.pdf", type: "application/pdf", size: max + 1 },
          ]),
          400,
        );
        equal(
          await send(KEY("d4"), [
            { name: "a.pdf", type: "application/pdf", size: 1 },
            { name: "b.pdf", type: "application/pdf", size: 1 },
          ]),
          400,
        );
        equal(
          await send(KEY("d5"), [
            { name: "a.mp3", type: "audio/mpeg", size: 1 },
          ]),
          400,
        );
        equal(await stored(w), before + 2);
      },
    );

    await t.step(
      "an administrator reads submissions and downloads attachments; others cannot (FORM-010 to FORM-012)",
      async () => {
        const note = await Deno.readTextFile(
          `${w.services.config.dataDir}/demo-admin.txt`,
        );
        const email = /email: (.+)/.exec(note)![1];
        const password = /password: (.+)/.exec(note)![1];
        const anonymous = await w.app.request(
          "/admin/forms",
          { headers: { host: "localhost", accept: "text/html" } },
        );
        ok(anonymous.status === 303 || anonymous.status === 401);
        const jar = new CookieJar();
        await signInAs(w, jar, { email, password, host: "localhost" });
        const page = await request(w, jar, "/admin/forms", {
          host: "localhost",
        });
        equal(page.status, 200);
        const html = await page.text();
        ok(html.includes("Form submissions"));
        ok(html.includes("ada@example.com"));
        ok(!html.includes("spam.example"));
        const link = /href="(\/api\/forms\/submissions\/[^"]+)"/.exec(html);
        ok(link, "expected an attachment link");
        const file = await request(w, jar, link[1], { host: "localhost" });
        equal(file.status, 200);
        equal((await file.arrayBuffer()).byteLength > 0, true);
        equal(file.headers.get("cache-control"), "no-store, private");
        const body = await (await request(w, jar, "/admin/forms", {
          host: "localhost",
        })).text();
        ok(!body.includes("form-attachments"), "no storage key is shown");
        const [, sub] = /submissions\/([^/]+)\//.exec(link[1])!;
        const missing = await request(
          w,
          jar,
          `/api/forms/submissions/${sub}/attachments/${crypto.randomUUID()}`,
          { host: "localhost" },
        );
        equal(missing.status, 404);
        const signedOut = await w.app.request(link[1], {
          headers: { host: "localhost" },
        });
        equal(signedOut.status, 401);
        // After retention, nothing can be downloaded and maintenance erases it.
        const [, , attachment] = /submissions\/([^/]+)\/attachments\/([^/"]+)/
          .exec(link[1])!;
        const ids = { submissionId: sub, attachmentId: attachment };
        const reader = {
          db: w.services.db,
          clock: w.clock,
          siteId: w.siteId,
          personId: w.adminId,
          store: formAttachmentStore(w.services),
        };
        equal((await readAttachment(reader, ids)).ok, true);
        w.clock.advance(FORM_LIMITS.retentionDays * 86_400_000 + 1);
        deepEqual(await readAttachment(reader, ids), {
          ok: false,
          code: "not_found",
        });
        equal((await runDailyMaintenance(w.services)).submissions > 0, true);
        equal(await stored(w), 0);
        equal(await attachmentsStored(w), 0);
      },
    );
  } finally {
    await w.close();
  }
});
