// The ceiling of `bench/generated_backend.ts`: the generated backend's findMany and findUnique
// answered by a bare Deno.serve + `pg` server over the same table, with nothing else (no access
// check, no query parsing, no router). Run as its own process: PORT, DATABASE_URL, TABLE.
import pg from "pg";

const pool = new pg.Pool({
  connectionString: Deno.env.get("DATABASE_URL"),
  max: 20,
});
const table = Deno.env.get("TABLE")!;
const columns = Deno.env.get("COLUMNS")!;
Deno.serve({
  port: Number(Deno.env.get("PORT") ?? 0),
  hostname: "127.0.0.1",
  onListen: ({ port }) => console.error(`Serving on http://127.0.0.1:${port}/`),
}, async (req) => {
  const url = new URL(req.url);
  if (url.pathname === `/api/${table}`) {
    const { rows } = await pool.query(
      `select ${columns} from ${table} order by id limit 25`,
    );
    return Response.json(rows);
  }
  if (url.pathname === `/api/${table}/unique`) {
    const where = JSON.parse(url.searchParams.get("where") ?? "{}");
    const { rows } = await pool.query(
      `select ${columns} from ${table} where id = $1`,
      [where.id],
    );
    return Response.json(rows[0] ?? null);
  }
  return new Response("not found", { status: 404 });
});
