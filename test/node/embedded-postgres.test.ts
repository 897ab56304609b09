import { Client, Pool } from "@neondatabase/serverless";
import { connect } from "node:net";
import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ws from "ws";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../../src/cli/local/pglite-server.js";
import { startWsProxy, type WsProxy } from "../../src/cli/local/ws-proxy.js";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import { parseFields, RawPg, wire } from "../support/pg-wire.js";

/**
 * The embedded Postgres (src/cli/local/pglite-wire-server.ts) under concurrent connections: one
 * PGlite backend, many clients, each must see only its own statements, portals, transactions and
 * results, through the Neon driver and the WebSocket proxy as the app uses it, and byte by byte
 * over TCP where the timing has to be exact.
 */

let pg: EmbeddedPostgres;
let proxy: WsProxy;

beforeAll(async () => {
  pg = await startEmbeddedPostgres();
  proxy = await startWsProxy({ allow: [`${pg.host}:${pg.port}`] });
  useLocalWsProxy(proxy.address, ws);
});

afterAll(async () => {
  await proxy?.stop();
  await pg?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** true if `p` has not settled after `ms` */
async function stillPending(p: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  p.then(
    () => (settled = true),
    () => (settled = true),
  );
  await sleep(ms);
  return !settled;
}

// First, while nothing else is connected: the last connection out resets the session.
it("gives the next connection a fresh session once the last one has left", async () => {
  const first = await RawPg.connect(pg.port);
  expect((await first.query("SET work_mem = '7MB'")).errors).toEqual([]);
  expect((await first.query("SHOW work_mem")).rows).toEqual([["7MB"]]);
  first.send(wire.terminate());
  await first.closed;
  const second = await RawPg.connect(pg.port);
  expect((await second.query("SHOW work_mem")).rows).toEqual([["4MB"]]);
  second.destroy();
  await second.closed;
});

it("keeps 24 connections' parameterised queries, named statements, inserts and transactions apart (Neon driver)", async () => {
  const N = 24;
  const ROUNDS = 30;
  const pool = new Pool({ connectionString: pg.url, max: N });
  await pool.query(
    "CREATE TABLE hammer (conn int NOT NULL, seq int NOT NULL, payload text NOT NULL, PRIMARY KEY (conn, seq))",
  );
  const clients = await Promise.all(Array.from({ length: N }, () => pool.connect()));
  const problems: string[] = [];
  const committed = new Map<number, number[]>();
  // bigger than one socket read, so these messages reach the server in pieces
  const big = "x".repeat(70_000);
  let checks = 0;

  await Promise.all(
    clients.map(async (c, conn) => {
      const mine: number[] = [];
      committed.set(conn, mine);
      const check = (what: string, got: unknown, want: unknown) => {
        checks++;
        if (!isDeepStrictEqual(got, want))
          problems.push(
            `conn ${conn} ${what}: got ${JSON.stringify(got)?.slice(0, 200)}, want ${JSON.stringify(want)?.slice(0, 200)}`,
          );
      };
      for (let round = 0; round < ROUNDS; round++) {
        try {
          // unnamed statement and portal, a query text of its own per connection
          const r1 = await c.query(`SELECT $1::int + 1 AS n, $2::text AS who, ${conn} AS conn`, [round, `c${conn}`]);
          check("select", r1.rows, [{ n: round + 1, who: `c${conn}`, conn }]);
          // a named prepared statement: the same name on every connection, a different text
          const r2 = await c.query({
            name: "hammer_named",
            text: `SELECT $1::int * ${conn + 2} AS product`,
            values: [round],
          });
          check("named statement", r2.rows, [{ product: round * (conn + 2) }]);
          // an insert outside a transaction, every fifth one big
          const seq = round * 2;
          const payload = round % 5 === 0 ? `${big}${conn}` : `p${conn}-${seq}`;
          const r3 = await c.query(
            "INSERT INTO hammer (conn, seq, payload) VALUES ($1, $2, $3) RETURNING conn, seq, length(payload) AS len",
            [conn, seq, payload],
          );
          check("insert", r3.rows, [{ conn, seq, len: payload.length }]);
          mine.push(seq);
          // a short transaction, committed two times in three, rolled back otherwise
          await c.query("BEGIN");
          await c.query("INSERT INTO hammer (conn, seq, payload) VALUES ($1, $2, $3)", [conn, seq + 1, `t${conn}`]);
          const r4 = await c.query("SELECT array_agg(seq ORDER BY seq) AS seqs FROM hammer WHERE conn = $1", [conn]);
          check("inside the transaction", r4.rows[0]?.seqs, [...mine, seq + 1]);
          if (round % 3 === 0) {
            await c.query("ROLLBACK");
          } else {
            await c.query("COMMIT");
            mine.push(seq + 1);
          }
          // an error fails this connection's transaction, and only this one's
          if (round % 7 === 0) {
            await c.query("BEGIN");
            const failed = await c.query("SELECT * FROM no_such_table").then(
              () => "no error",
              (e: Error) => e.message,
            );
            check("error", failed, 'relation "no_such_table" does not exist');
            const aborted = await c.query("SELECT 1").then(
              () => "no error",
              (e: Error) => e.message,
            );
            check(
              "aborted transaction",
              aborted,
              "current transaction is aborted, commands ignored until end of transaction block",
            );
            await c.query("ROLLBACK");
          }
        } catch (e) {
          problems.push(`conn ${conn} round ${round}: ${(e as Error).message}`);
        }
      }
    }),
  );
  for (const c of clients) c.release();
  expect(problems).toEqual([]);
  expect(checks).toBe(N * ROUNDS * 4 + N * Math.ceil(ROUNDS / 7) * 2);
  const stored = await pool.query(
    "SELECT conn, array_agg(seq ORDER BY seq) AS seqs FROM hammer GROUP BY conn ORDER BY conn",
  );
  expect(stored.rows).toEqual([...committed].sort(([a], [b]) => a - b).map(([conn, seqs]) => ({ conn, seqs })));
  await pool.end();
});

it("keeps one connection's Parse/Bind/Execute/Sync together when it arrives in pieces, however the others' interleave", async () => {
  const a = await RawPg.connect(pg.port);
  const b = await RawPg.connect(pg.port);
  a.send(wire.parse("", "SELECT 'from a'::text"));
  await sleep(100);
  // b's whole cycle lands between a's Parse and a's Bind
  b.send(wire.parse("", "SELECT 'from b'::text"), wire.bind("", ""), wire.execute(), wire.sync());
  const bDone = b.untilReady();
  expect(await stillPending(bDone, 300)).toBe(true);
  a.send(wire.bind("", ""));
  await sleep(100);
  a.send(wire.execute(), wire.sync());
  const ra = await a.untilReady();
  expect(ra.errors).toEqual([]);
  expect(ra.rows).toEqual([["from a"]]);
  expect(ra.status).toBe("I");
  const rb = await bDone;
  expect(rb.errors).toEqual([]);
  expect(rb.rows).toEqual([["from b"]]);
  a.destroy();
  b.destroy();
});

describe("a client that goes away", () => {
  it("in a transaction: it is rolled back, and the connections waiting go on", async () => {
    const pool = new Pool({ connectionString: pg.url, max: 2 });
    await pool.query("CREATE TABLE ghosts (note text)");
    const ghost = await RawPg.connect(pg.port);
    const begun = await ghost.query("BEGIN; INSERT INTO ghosts VALUES ('ghost')");
    expect(begun.errors).toEqual([]);
    expect(begun.status).toBe("T");
    const waiting = pool.query("SELECT count(*)::int AS n FROM ghosts");
    // its open transaction holds the backend...
    expect(await stillPending(waiting, 500)).toBe(true);
    // ...until it drops the connection without a word
    ghost.destroy();
    expect((await waiting).rows).toEqual([{ n: 0 }]);
    const next = await RawPg.connect(pg.port);
    const r = await next.query("SELECT count(*) FROM ghosts");
    expect(r.status).toBe("I");
    expect(r.rows).toEqual([["0"]]);
    next.destroy();
    await pool.end();
  });

  it("in a failed transaction, or halfway through a request: the others go on", async () => {
    const pool = new Pool({ connectionString: pg.url, max: 2 });
    const failed = await RawPg.connect(pg.port);
    const r = await failed.query("BEGIN; SELECT * FROM no_such_table");
    expect(r.status).toBe("E");
    const afterFailed = pool.query("SELECT 1 AS one");
    expect(await stillPending(afterFailed, 300)).toBe(true);
    failed.destroy();
    expect((await afterFailed).rows).toEqual([{ one: 1 }]);

    const half = await RawPg.connect(pg.port);
    half.send(wire.parse("", "SELECT 'half'::text"), wire.bind("", ""));
    expect((await half.next()).type).toBe("1"); // ParseComplete
    expect((await half.next()).type).toBe("2"); // BindComplete
    const afterHalf = pool.query("SELECT $1::text AS t", ["whole"]);
    expect(await stillPending(afterHalf, 300)).toBe(true);
    half.destroy();
    expect((await afterHalf).rows).toEqual([{ t: "whole" }]);
    await pool.end();
  });

  it("while it waits its turn: it does not stop the queue", async () => {
    const holder = await RawPg.connect(pg.port);
    const queued = await RawPg.connect(pg.port);
    expect((await holder.query("BEGIN")).status).toBe("T");
    queued.send(wire.query("SELECT 'queued'"));
    const queuedDone = queued.untilReady();
    queuedDone.catch(() => {});
    expect(await stillPending(queuedDone, 200)).toBe(true);
    queued.destroy();
    await queued.closed;
    expect((await holder.query("COMMIT")).status).toBe("I");
    const pool = new Pool({ connectionString: pg.url, max: 1 });
    expect((await pool.query("SELECT 2 AS two")).rows).toEqual([{ two: 2 }]);
    holder.destroy();
    await pool.end();
  });

  it("leaves no statement behind: its named and unnamed statements are closed", async () => {
    const ghost = await RawPg.connect(pg.port);
    const other = await RawPg.connect(pg.port);
    ghost.send(wire.parse("", "SELECT 'ghost'::text"), wire.parse("kept", "SELECT 'kept'::text"), wire.sync());
    expect((await ghost.untilReady()).errors).toEqual([]);
    // a named statement of `other`'s own, so probing does not touch the unnamed statement
    other.send(wire.parse("probe", "SELECT name FROM pg_prepared_statements ORDER BY name"), wire.sync());
    expect((await other.untilReady()).errors).toEqual([]);
    const statements = async () => {
      other.send(wire.bind("", "probe"), wire.execute(), wire.sync());
      return (await other.untilReady()).rows.map((row) => row[0]!).filter((name) => !name.startsWith("probe"));
    };
    expect((await statements()).some((name) => name.startsWith("kept"))).toBe(true);
    ghost.destroy();
    for (let i = 0; i < 50 && (await statements()).length > 0; i++) await sleep(20);
    expect(await statements()).toEqual([]);
    // the unnamed statement went with it: binding it now is an error, not the ghost's query
    other.send(wire.bind("", ""), wire.execute(), wire.sync());
    const r = await other.untilReady();
    expect(r.rows).toEqual([]);
    expect(r.codes).toEqual(["26000"]);
    other.destroy();
  });
});

it("serves 200 simultaneous connections, each with a transaction of its own (Neon driver)", async () => {
  const N = 200;
  const setup = new Pool({ connectionString: pg.url, max: 1 });
  await setup.query("CREATE TABLE crowd (k int PRIMARY KEY, v text)");
  const clients = Array.from({ length: N }, () => new Client(pg.url));
  await Promise.all(clients.map((c) => c.connect()));
  const results = await Promise.all(
    clients.map(async (c, k) => {
      const plain = await c.query(`SELECT $1::int AS i, ${k} AS k`, [k * 3]);
      await c.query("BEGIN");
      await c.query("INSERT INTO crowd (k, v) VALUES ($1, $2)", [k, `v${k}`]);
      const inside = await c.query("SELECT count(*)::int AS n, max(v) FILTER (WHERE k = $1) AS v FROM crowd", [k]);
      await c.query("COMMIT");
      return { plain: plain.rows[0], v: inside.rows[0]?.v, n: inside.rows[0]?.n };
    }),
  );
  expect(results.map(({ plain, v }) => ({ plain, v }))).toEqual(
    clients.map((_, k) => ({ plain: { i: k * 3, k }, v: `v${k}` })),
  );
  // one transaction at a time: each saw the rows committed before it, plus its own
  expect(results.map(({ n }) => n).sort((x, y) => x! - y!)).toEqual(clients.map((_, k) => k + 1));
  await Promise.all(clients.map((c) => c.end()));
  expect((await setup.query("SELECT count(*)::int AS n FROM crowd")).rows).toEqual([{ n: N }]);
  await setup.end();
});

describe("the handshake and the end", () => {
  it("refuses SSL with N and goes on in the clear", async () => {
    const socket = connect({ host: "127.0.0.1", port: pg.port });
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    socket.write(wire.sslRequest());
    const answer = await new Promise<Buffer>((resolve) => socket.once("data", resolve));
    expect(answer.toString()).toBe("N");
    socket.write(wire.startup());
    const hello = await new Promise<Buffer>((resolve) => socket.once("data", resolve));
    expect(String.fromCharCode(hello[0]!)).toBe("R"); // AuthenticationOk
    expect(hello.readInt32BE(5)).toBe(0);
    socket.destroy();
  });

  it("closes the connection after Terminate, at once even while another connection's transaction holds the backend", async () => {
    const c = await RawPg.connect(pg.port);
    c.send(wire.terminate());
    await expect(Promise.race([c.closed.then(() => "closed"), sleep(2_000).then(() => "open")])).resolves.toBe(
      "closed",
    );

    const holder = await RawPg.connect(pg.port);
    const leaving = await RawPg.connect(pg.port);
    expect((await leaving.query("SELECT 1")).status).toBe("I");
    expect((await holder.query("BEGIN")).status).toBe("T");
    leaving.send(wire.terminate());
    await expect(Promise.race([leaving.closed.then(() => "closed"), sleep(2_000).then(() => "open")])).resolves.toBe(
      "closed",
    );
    expect((await holder.query("COMMIT")).status).toBe("I");
    holder.destroy();
  });

  it("answers a message that has no place in a session with FATAL 08P01 and closes, and the database carries on", async () => {
    const c = await RawPg.connect(pg.port);
    // a PasswordMessage after authentication (PGlite itself would never return from it)
    c.send(wire.message("p", wire.cstr("secret")));
    const m = await c.next();
    expect(m.type).toBe("E");
    expect(parseFields(m.body)).toMatchObject({ S: "FATAL", C: "08P01" });
    await c.closed;
    const d = await RawPg.connect(pg.port);
    expect((await d.query("SELECT 40 + 2")).rows).toEqual([["42"]]);
    d.destroy();
  });
});
