// svc-manage.mjs upload-media, replace-media and put-media-original with --file, as a user runs them (CLI-004, MED-001).
import assert from "node:assert/strict";
import { png, withMediaApp } from "../media/support.ts";
import { runCli, serveOnLoopback } from "./svc_manage_support.ts";

Deno.test("svc-manage.mjs upload-media --file streams a multipart upload; replace-media takes --file and stdin; mistakes exit 2 naming the flag (CLI-004, MED-001)", () =>
  withMediaApp(async (t) => {
    const server = serveOnLoopback(t.app.fetch);
    const dir = await Deno.makeTempDir({ prefix: "stave-cli-media-" });
    const env = {
      SVC_URL: server.url,
      SVC_MANAGEMENT_TOKEN: t.media,
      SVC_CONFIG_DIR: `${dir}/config`,
    };
    try {
      const bytes = await png(7, 5, 4);
      // A misleading name: the type comes from the bytes.
      await Deno.writeFile(`${dir}/door.jpg`, bytes);
      const uploaded = await runCli([
        "upload-media",
        "--file",
        `${dir}/door.jpg`,
        "--body",
        '{"alt_texts":{"en":"A red door"}}',
      ], { env });
      assert.equal(uploaded.code, 0, uploaded.stderr);
      assert.match(
        uploaded.stderr,
        /Sending door\.jpg \(\d+ bytes, image\/png\)/,
      );
      const item = JSON.parse(uploaded.stdout);
      assert.equal(item.mime_type, "image/png");
      assert.equal(item.width, 5);
      assert.equal(item.height, 4);

      // replace-media from stdin, with the type given.
      const next = await png(8, 6, 2);
      const child = new Deno.Command("node", {
        args: [
          `${
            new URL("../../generated/svc-manage.mjs", import.meta.url).pathname
          }`,
          "replace-media",
          "--id",
          item.id,
          "--file",
          "-",
          "--content-type",
          "image/png",
        ],
        clearEnv: true,
        env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", ...env },
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = child.stdin.getWriter();
      await writer.write(next);
      await writer.close();
      const replaced = await child.output();
      const stderr = new TextDecoder().decode(replaced.stderr);
      const stdout = new TextDecoder().decode(replaced.stdout);
      // A refusal (1) still proves the file reached the service; success is 0.
      assert.ok(replaced.code === 0 || replaced.code === 1, stderr);
      assert.match(stderr, /Sending stdin \(\d+ bytes, image\/png\)/);
      assert.ok(JSON.parse(stdout));

      for (
        const [args, message] of [
          [["upload-media"], /needs --file <path>/],
          [["upload-media", "--file", `${dir}/missing.png`], /Cannot read/],
          [
            [
              "upload-media",
              "--file",
              `${dir}/door.jpg`,
              "--content-type",
              "x",
            ],
            /--content-type needs a media type/,
          ],
          [["get-site", "--content-type", "image/png"], /does not apply/],
        ] as const
      ) {
        const run = await runCli([...args], { env });
        assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
        assert.match(run.stderr, message);
      }
      const list = await (await t.call("GET", "/media", { secret: t.media }))
        .json();
      assert.equal(list.data.length, 1);
    } finally {
      await server.shutdown();
      await Deno.remove(dir, { recursive: true });
    }
  }));

Deno.test("svc-manage.mjs help shows an example, and hints name commands instead of routes (CLI-004)", async () => {
  const help = await runCli(["list-entries", "--help"]);
  assert.equal(help.code, 0);
  assert.match(
    help.stdout,
    /Example:\n {2}node svc-manage\.mjs list-entries --model-id/,
  );
  assert.match(help.stdout, /as list-models answers/);
  assert.doesNotMatch(help.stdout, /as GET \/models/);
  const upload = await runCli(["upload-media", "--help"]);
  assert.match(upload.stdout, /--file <path \| ->/);
});
