// A real PostgreSQL primary and a streaming replica of it on this machine, for the read-replica
// tests: `initdb` makes the primary's cluster, `pg_basebackup -R` copies it into a second cluster
// that follows it over streaming replication, each on a free port of 127.0.0.1. The servers run as
// the `postgres` user (PostgreSQL refuses root), so the tests need root or that user, and the
// PostgreSQL server programs (Debian's postgresql package; CI installs it).

/** A running primary and replica, and the controls the tests need. */
export interface StreamingPair {
  primaryUrl: string;
  replicaUrl: string;
  /** Stops the replica at once, as a crash would. */
  stopReplica(): Promise<void>;
  /** Starts the stopped replica again; it catches up from the primary. */
  startReplica(): Promise<void>;
  /** Pauses WAL replay on the replica: it stays up and falls behind. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Waits until the replica has replayed everything the primary has written. */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
}

/** Where the server programs are, or null when this machine has none (the tests then skip). */
export function postgresBin(): string | null {
  try {
    for (const entry of Deno.readDirSync("/usr/lib/postgresql")) {
      const bin = `/usr/lib/postgresql/${entry.name}/bin`;
      try {
        Deno.statSync(`${bin}/initdb`);
        return bin;
      } catch { /* another version */ }
    }
  } catch { /* no server installed */ }
  return null;
}

/** True when this process may run the servers as `postgres` (root, or that user itself). */
export function canRunClusters(): boolean {
  return postgresBin() !== null &&
    (Deno.uid() === 0 || Deno.env.get("USER") === "postgres");
}

async function run(args: string[], options: { user?: boolean } = {}) {
  const asPostgres = Deno.uid() === 0 && options.user !== false;
  const command = asPostgres
    ? new Deno.Command("runuser", { args: ["-u", "postgres", "--", ...args] })
    : new Deno.Command(args[0], { args: args.slice(1) });
  const output = await command.output();
  if (!output.success) {
    throw new Error(
      `${args.join(" ")} failed: ${new TextDecoder().decode(output.stderr)}`,
    );
  }
  return new TextDecoder().decode(output.stdout);
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Makes the primary and its replica; both are removed by `close()`. */
export async function startStreamingPair(): Promise<StreamingPair> {
  const bin = postgresBin()!;
  const root = await Deno.makeTempDir({ prefix: "stave-replica-" });
  await Deno.chmod(root, 0o777);
  const primaryDir = `${root}/primary`;
  const replicaDir = `${root}/replica`;
  const primaryPort = freePort();
  const replicaPort = freePort();
  const settings = (port: number) =>
    [
      "-c",
      `port=${port}`,
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      `unix_socket_directories=${root}`,
      "-c",
      "fsync=off",
      "-c",
      "shared_buffers=16MB",
      "-c",
      "max_connections=60",
    ].join(" ");
  await run([
    `${bin}/initdb`,
    "-D",
    primaryDir,
    "-U",
    "postgres",
    "--auth=trust",
    "-E",
    "UTF8",
    "--locale=C",
  ]);
  await Deno.writeTextFile(
    `${primaryDir}/pg_hba.conf`,
    "host all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\nlocal all all trust\n",
  );
  const start = (dir: string, port: number) =>
    run([
      `${bin}/pg_ctl`,
      "-D",
      dir,
      "-o",
      settings(port),
      "-l",
      `${dir}.log`,
      "-w",
      "start",
    ]);
  const stop = (dir: string, mode: "fast" | "immediate") =>
    run([`${bin}/pg_ctl`, "-D", dir, "-m", mode, "-w", "stop"]);
  await start(primaryDir, primaryPort);
  await run([
    `${bin}/pg_basebackup`,
    "-h",
    "127.0.0.1",
    "-p",
    String(primaryPort),
    "-U",
    "postgres",
    "-D",
    replicaDir,
    "-R",
    "-X",
    "stream",
  ]);
  await start(replicaDir, replicaPort);
  const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/postgres`;
  const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/postgres`;
  const psql = (port: number, text: string) =>
    run([
      `${bin}/psql`,
      "-h",
      "127.0.0.1",
      "-p",
      String(port),
      "-U",
      "postgres",
      "-d",
      "postgres",
      "-tAc",
      text,
    ], { user: false });
  let replicaRunning = true;
  return {
    primaryUrl,
    replicaUrl,
    async stopReplica() {
      await stop(replicaDir, "immediate");
      replicaRunning = false;
    },
    async startReplica() {
      await start(replicaDir, replicaPort);
      replicaRunning = true;
    },
    async pauseReplay() {
      await psql(replicaPort, "select pg_wal_replay_pause()");
    },
    async resumeReplay() {
      await psql(replicaPort, "select pg_wal_replay_resume()");
    },
    async caughtUp() {
      const target = (await psql(primaryPort, "select pg_current_wal_lsn()"))
        .trim();
      // Replication is another process's work: look again until it is done, 10 s at most.
      for (let attempt = 0; attempt < 500; attempt++) {
        const behind = (await psql(
          replicaPort,
          `select pg_last_wal_replay_lsn() < '${target}'::pg_lsn`,
        )).trim();
        if (behind === "f") return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error("the replica did not catch up within 10 s");
    },
    async close() {
      if (replicaRunning) await stop(replicaDir, "immediate").catch(() => {});
      await stop(primaryDir, "immediate").catch(() => {});
      await Deno.remove(root, { recursive: true });
    },
  };
}
