// svc-manage.mjs import and export helpers as a user runs them (spec 2 part 4.4): advance --follow,
// read-export-chunk --out with the SHA-256 check, upload-import-part --file in 5 MiB parts.
import assert from "node:assert/strict";
import { openManageApp } from "../manage/helpers.ts";
import { sha256 } from "../data/helpers.ts";
import { runCli, serveOnLoopback } from "./svc_manage_support.ts";

Deno.test("svc-manage.mjs exports a site to a file and imports it back from the file in 5 MiB parts, following each job to its end (CLI-008, CLI-009, CLI-010)", async () => {
  const t = await openManageApp();
  const server = serveOnLoopback(t.app.fetch);
  const home = await Deno.makeTempDir({ prefix: "stave-cli-data-" });
  const cred = await t.credential(["data:export", "data:import"]);
  const env = {
    SVC_URL: server.url,
    SVC_MANAGEMENT_TOKEN: cred.secret,
    SVC_CONFIG_DIR: `${home}/config`,
  };
  const run = async (args: string[], code = 0) => {
    const result = await runCli(args, { env });
    assert.equal(result.code, code, `${args.join(" ")}\n${result.stderr}`);
    assert.ok(
      !result.stdout.includes(cred.secret) &&
        !result.stderr.includes(cred.secret),
    );
    return result;
  };
  try {
    const created = JSON.parse(
      (await run(["create-export", "--body", "{}"])).stdout,
    );
    const built = await run(["advance-export", "--id", created.id, "--follow"]);
    assert.equal(JSON.parse(built.stdout).state, "ready");
    assert.match(built.stderr, /export .*: building, next /);
    const file = `${home}/site.jsonl`;
    const read = await run([
      "read-export-chunk",
      "--id",
      created.id,
      "--out",
      file,
    ]);
    const bytes = await Deno.readFile(file);
    assert.equal(JSON.parse(read.stdout).sha256, await sha256(bytes));
    assert.match(read.stderr, /Wrote \d+ bytes/);

    // Blank lines are allowed; 11 MiB of them make the archive three parts.
    const padded = new Uint8Array(bytes.byteLength + 11 * 1024 * 1024).fill(
      0x0a,
    );
    padded.set(bytes);
    const big = `${home}/big.jsonl`;
    await Deno.writeFile(big, padded);
    const source = JSON.parse(
      (await run([
        "create-import-source",
        "--body",
        '{"name":"CLI","format":"stave-archive"}',
      ])).stdout,
    );
    const job = JSON.parse(
      (await run([
        "create-import",
        "--body",
        JSON.stringify({ source_id: source.id }),
      ])).stdout,
    );
    const sent = await run([
      "upload-import-part",
      "--id",
      job.id,
      "--file",
      big,
    ]);
    assert.match(sent.stderr, /Part 3 of 3 sent/);
    const received = JSON.parse(sent.stdout);
    assert.equal(received.state, "archive_received");
    assert.equal(received.file.sha256, await sha256(padded));
    const done = await run(["advance-import", "--id", job.id, "--follow"]);
    assert.equal(JSON.parse(done.stdout).state, "completed", done.stdout);
    const receipt = `${home}/receipt.json`;
    await run([
      "read-import-artifact",
      "--id",
      job.id,
      "--artifact",
      "receipt",
      "--out",
      receipt,
    ]);
    assert.equal(
      JSON.parse(await Deno.readTextFile(receipt)).import_id,
      job.id,
    );

    // Usage problems: exit 2, one line, nothing sent.
    const noFile = await run([
      "upload-import-part",
      "--id",
      job.id,
      "--part",
      "1",
    ], 2);
    assert.match(noFile.stderr, /needs --file/);
    const wrongOut = await run(["get-site", "--out", file], 2);
    assert.match(wrongOut.stderr, /--out does not apply/);
    const wrongFollow = await run(["get-site", "--follow"], 2);
    assert.match(wrongFollow.stderr, /--follow does not apply/);
    const missing = await run([
      "upload-import-part",
      "--id",
      job.id,
      "--file",
      `${home}/nope`,
    ], 2);
    assert.match(missing.stderr, /Cannot read the file/);
    const help = await run(["upload-import-part", "--help"]);
    assert.match(help.stdout, /--file <path>/);
    assert.match((await run(["advance-import", "--help"])).stdout, /--follow/);
    assert.match(
      (await run(["read-export-chunk", "--help"])).stdout,
      /--out <path>/,
    );
  } finally {
    await server.shutdown();
    await t.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("svc-manage.mjs read-export-chunk --out writes nothing when the pages do not match their SHA-256 (CLI-010)", async () => {
  const page = {
    content_base64: btoa("not what was promised"),
    content_type: "application/x-ndjson",
    offset: 0,
    length: 21,
    total: 21,
    next_offset: null,
    sha256: "0".repeat(64),
    page: 1,
    next_page: null,
  };
  const server = serveOnLoopback(() => Response.json(page));
  const home = await Deno.makeTempDir({ prefix: "stave-cli-tamper-" });
  try {
    const out = `${home}/export.jsonl`;
    const result = await runCli(
      ["read-export-chunk", "--id", crypto.randomUUID(), "--out", out],
      {
        env: {
          SVC_URL: server.url,
          SVC_MANAGEMENT_TOKEN: "svm_test",
          SVC_CONFIG_DIR: `${home}/config`,
        },
      },
    );
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /does not match its SHA-256/);
    await assert.rejects(() => Deno.stat(out), Deno.errors.NotFound);
  } finally {
    await server.shutdown();
    await Deno.remove(home, { recursive: true });
  }
});
