import { Pool } from "@neondatabase/serverless";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ws from "ws";
import { startWsProxy, type WsProxy } from "../../src/cli/local/ws-proxy.js";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import { PostgresDb } from "../../src/db/postgres/postgres-db.js";
import { asUnavailable } from "../../src/db/postgres/unavailable.js";
import { ConflictError, DatabaseUnavailableError, NotFoundError } from "../../src/errors.js";
import { dbTargets } from "../support/db-targets.js";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy.js";

/**
 * The Postgres adapter's side of an outage, on the driver the Worker uses: a database that refuses,
 * or accepts and never answers, is a DatabaseUnavailableError from the adapter's methods within the
 * pool's timeouts; a genuine SQL error is not; and a long-lived pool (the queue object's) works again
 * by itself once the database is back.
 */
const CONNECT_TIMEOUT_MS = 1_000;
const STATEMENT_TIMEOUT_MS = 1_000;

describe.each(dbTargets())("database unavailable on $name", (target) => {
  let fault: FaultProxy;
  let proxy: WsProxy;
  let pool: Pool;
  let db: PostgresDb;
  const schema = `unavail_${process.pid}_${target.name}`;

  beforeAll(async () => {
    fault = await startFaultProxy(target.url);
    proxy = await startWsProxy({ allow: [`${fault.host}:${fault.port}`] });
    useLocalWsProxy(proxy.address, ws);
    pool = new Pool({
      connectionString: fault.url,
      max: 4,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: STATEMENT_TIMEOUT_MS,
    });
    pool.on("error", () => undefined);
    db = new PostgresDb({ pool, schema });
    expect(await db.init()).toBe("current");
  });

  afterAll(async () => {
    await fault.set("forward");
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await pool.end().catch(() => undefined);
    await proxy.stop();
    await fault.stop();
  });

  const timed = async (work: () => Promise<unknown>) => {
    const started = performance.now();
    const error = await work().then(
      () => undefined,
      (e: unknown) => e,
    );
    return { error, ms: performance.now() - started };
  };

  it("keeps genuine errors what they are: a conflict, a statement Postgres rejects", async () => {
    await db.createSession({ session_id: "s-dup", session_type: "agent", agent_id: "a" });
    expect(
      (await timed(() => db.createSession({ session_id: "s-dup", session_type: "agent", agent_id: "a" }))).error,
    ).toBeInstanceOf(ConflictError);
    const sqlError = await pool.query("SELECT 1/0").catch((e: unknown) => e);
    expect(asUnavailable(sqlError)).toBe(sqlError);
    // A statement whose data reads like a driver failure is still the statement's error.
    const quoted = await pool.query("SELECT 'Connection terminated unexpectedly'::int").catch((e: unknown) => e);
    expect(asUnavailable(quoted)).toBe(quoted);
    const ours = new NotFoundError("session Connection terminated not found");
    expect(asUnavailable(ours)).toBe(ours);
  });

  it("refused: DatabaseUnavailableError at once, from reads and writes alike", async () => {
    await fault.set("refuse");
    for (const work of [
      () => db.getSessions(),
      () => db.upsertSession({ session_id: "s-new", session_type: "agent", agent_id: "a" }),
      () => db.jobs.claimJobs({ workerId: "w", limit: 1, leaseSeconds: 5 }),
      () => db.ping(),
    ]) {
      const { error, ms } = await timed(work);
      expect(error).toBeInstanceOf(DatabaseUnavailableError);
      expect((error as DatabaseUnavailableError).retryAfterSeconds).toBeGreaterThan(0);
      expect(ms).toBeLessThan(CONNECT_TIMEOUT_MS);
    }
  });

  it("blackholed: DatabaseUnavailableError within the timeouts, for new connections and for ones that were open", async () => {
    await fault.set("forward");
    // Connections opened while the database answered, then silenced: the statement timeout ends the wait.
    await Promise.all([db.getSessions(), db.getSessions(), db.getSessions()]);
    await fault.set("blackhole");
    for (const work of [
      () => db.getSessions(),
      () => db.ping(),
      () => db.jobs.claimJobs({ workerId: "w", limit: 1, leaseSeconds: 5 }),
    ]) {
      const { error, ms } = await timed(work);
      expect(error).toBeInstanceOf(DatabaseUnavailableError);
      expect(ms).toBeLessThan(2 * (CONNECT_TIMEOUT_MS + STATEMENT_TIMEOUT_MS));
    }
  });

  it("back: the same long-lived pool serves again without being rebuilt", async () => {
    await fault.set("forward");
    expect(await db.getSession("s-dup")).not.toBeNull();
    expect((await db.getSessions()).data.length).toBeGreaterThan(0);
    await db.upsertSession({ session_id: "s-after", session_type: "agent", agent_id: "a" });
    expect(await db.getSession("s-after")).not.toBeNull();
  });
});
