// Test support: the fixture site generated and started as its own process, with a read token
// for tags only and a wildcard one in the owner's ACCESS_CONFIG.
import { ManualClock } from "../../core/clock.ts";
import { openTestDb } from "../support/db.ts";
import { emit, type EmittedBackend, startBackend } from "./emitted.ts";
import {
  createFixtureSite,
  type FixtureSite,
  readToken,
} from "./fixture_site.ts";

/** The running fixture backend and what tests call it with. */
export interface FixtureBackend extends EmittedBackend {
  fixture: FixtureSite;
  /** Secrets of the read tokens: scoped to `tag`, and wildcard. */
  tagReader: string;
  wildcardReader: string;
  /** PRIVATE_FILES_DIR of the backend. */
  filesDir: string;
}

/** Generates the fixture site (tag.delete disabled) and starts its backend. */
export async function fixtureBackend(): Promise<FixtureBackend> {
  const testDb = await openTestDb();
  try {
    const fixture = await createFixtureSite(
      testDb.db,
      new ManualClock("2026-11-28T10:00:00Z"),
    );
    const { dir, schema } = await emit(testDb.db, {
      siteId: fixture.siteId,
      publicUrl: "http://media.example",
      disabled: { tag: ["delete"] },
    });
    const tag = await readToken(fixture.siteId, "tags-only", [
      fixture.models.tag,
    ]);
    const all = await readToken(fixture.siteId, "everything", ["*"]);
    // The tag token is one issued by the service (access/read-tokens.json), the wildcard one
    // the owner's own (ACCESS_CONFIG): the backend serves their union (GACC-006).
    await Deno.writeTextFile(
      `${dir}/access/read-tokens.json`,
      JSON.stringify({
        version: 1,
        site_id: fixture.siteId,
        tokens: [tag.entry],
      }),
    );
    const filesDir = `${dir}/private-files`;
    await Deno.mkdir(filesDir);
    const backend = await startBackend(dir, schema, {
      env: {
        PRIVATE_FILES_DIR: filesDir,
        ACCESS_CONFIG: JSON.stringify({
          version: 1,
          site_id: fixture.siteId,
          tokens: [all.entry],
        }),
      },
    });
    return {
      ...backend,
      async stop() {
        await backend.stop();
        await Deno.remove(dir, { recursive: true });
      },
      fixture,
      tagReader: tag.secret,
      wildcardReader: all.secret,
      filesDir,
    };
  } finally {
    await testDb.close();
  }
}

/** `?where=` for an id. */
export function whereId(id: string): string {
  return `where=${encodeURIComponent(JSON.stringify({ id }))}`;
}
