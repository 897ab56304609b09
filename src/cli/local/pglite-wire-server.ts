import type { PGlite } from "@electric-sql/pglite";
import { createHash } from "node:crypto";
import { createServer, type Server, type Socket } from "node:net";

/**
 * A Postgres wire-protocol server in front of one PGlite instance, safe under concurrent
 * connections.
 *
 * PGlite is a single Postgres backend: one session, one unnamed statement, one unnamed portal,
 * one transaction. `@electric-sql/pglite-socket` hands every client message to it as the message
 * arrives and only keeps other clients out while `BEGIN` has a transaction open, so the
 * Parse/Bind/Execute/Sync of two connections interleave ("unnamed prepared statement does not
 * exist", `portal "" does not exist`, or one connection's rows in another's result). This server
 * serialises whole request cycles instead:
 *
 * - A connection takes the backend with the first message of a cycle and keeps it until the
 *   backend answers ReadyForQuery with status `I`: the cycle is over and no transaction is open.
 *   While its transaction is open (`T`, or `E` after an error) it keeps the backend; the others'
 *   messages wait their turn, first come first served.
 * - A connection that goes away (closed, reset, Terminate) gives the backend back clean: an
 *   unfinished cycle is ended with a Sync, an open transaction is rolled back, its named
 *   statements and the unnamed statement it parsed are closed; when the last connection leaves,
 *   `DISCARD ALL` resets the session (settings, temporary tables) as a new session would find it.
 * - Named prepared statements (the extended protocol's Parse/Bind/Describe/Close) are renamed per
 *   connection, `<name>@<connection id>`, so two connections can prepare the same name, as they
 *   can on a real server. SQL-level PREPARE/EXECUTE/DEALLOCATE are passed through unchanged.
 *
 * What stays shared, because there is one backend: session settings changed with SET, temporary
 * tables, LISTEN (a notification is delivered to whichever connection runs next) and session-level
 * advisory locks (every connection is the same session, so they never block each other;
 * transaction-level ones are fine, since transactions run one at a time).
 *
 * The handshake is what pglite-socket did: SSLRequest and GSSENCRequest are refused with `N`, a
 * CancelRequest is consumed (there is no backend process to signal), the StartupMessage goes to
 * PGlite (authentication is trust: AuthenticationOk, parameters, BackendKeyData, ReadyForQuery)
 * and Terminate closes the connection, as a real server does.
 */

export interface PgliteWireServerOptions {
  db: PGlite;
  host?: string;
  /** 0 or undefined: a free port chosen by the system */
  port?: number;
  /** connections beyond this are refused with `53300 too_many_connections` (default 1024) */
  maxConnections?: number;
  /**
   * A connection that holds the backend this long while others wait is reported once on stderr
   * (default 30 s; 0 never): an open transaction that is never finished stops every other
   * connection, which is otherwise hard to tell from a hang.
   */
  holdWarningMs?: number;
  /** logs each connection's coming and going and each cycle on stdout */
  debug?: boolean;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
/** protocol 3.x: the major version is in the high 16 bits of the startup code */
const PROTOCOL_MAJOR_3 = 3;
/** Postgres caps a startup packet at 10000 bytes */
const MAX_STARTUP_LENGTH = 10_000;
/** Postgres' own cap on a message (PQ_LARGE_MESSAGE_LIMIT is 1 GB - 1) */
const MAX_MESSAGE_LENGTH = 0x3fffffff;
/** NAMEDATALEN - 1: prepared statement names are compared on their first 63 bytes */
const MAX_NAME_BYTES = 63;
/**
 * Frontend messages after the startup. Anything else is a protocol violation (and PGlite must
 * never see one: given a PasswordMessage in a running session it loops until memory runs out).
 */
const FRONTEND_TYPES = new Set(["P", "B", "E", "S", "D", "C", "H", "Q", "F", "d", "c", "f"]);

type TxStatus = "I" | "T" | "E";

/** A message from the client: the startup packet (type "") or a typed message, with its bytes. */
interface Frame {
  type: string;
  bytes: Buffer;
}

export class PgliteWireServer {
  readonly db: PGlite;
  private readonly host: string;
  private readonly requestedPort: number;
  private readonly maxConnections: number;
  private readonly holdWarningMs: number;
  private readonly debug: boolean;
  private server: Server | null = null;
  private readonly connections = new Set<Connection>();
  private nextId = 1;
  private stopping = false;

  /** the connection that owns the backend, and the ones waiting for it in arrival order */
  private owner: Connection | null = null;
  private ownerSince = 0;
  private ownerWarned = false;
  private readonly waiting: { conn: Connection; grant: (granted: boolean) => void }[] = [];
  private warnTimer: NodeJS.Timeout | null = null;
  /** which connection's Parse made the unnamed statement that the backend holds */
  unnamedStatementBy: Connection | null = null;

  constructor(opts: PgliteWireServerOptions) {
    this.db = opts.db;
    this.host = opts.host ?? "127.0.0.1";
    this.requestedPort = opts.port ?? 0;
    this.maxConnections = opts.maxConnections ?? 1024;
    this.holdWarningMs = opts.holdWarningMs ?? 30_000;
    this.debug = opts.debug ?? false;
  }

  get port(): number {
    const addr = this.server?.address();
    return typeof addr === "object" && addr ? addr.port : this.requestedPort;
  }

  /** connections open now, and how many of them wait for the backend */
  stats(): { connections: number; waiting: number } {
    return { connections: this.connections.size, waiting: this.waiting.length };
  }

  async start(): Promise<void> {
    if (this.server) throw new Error("server already started");
    await this.db.waitReady;
    const server = createServer((socket) => this.accept(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.requestedPort, this.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    server.on("error", (err) => console.error("[pglite-wire] server error:", err));
    if (this.holdWarningMs > 0) {
      this.warnTimer = setInterval(() => this.checkHold(), Math.min(5_000, this.holdWarningMs));
      this.warnTimer.unref();
    }
  }

  /** Stops accepting, drops every connection (no cleanup: the database is about to close). */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.warnTimer) clearInterval(this.warnTimer);
    this.warnTimer = null;
    const server = this.server;
    this.server = null;
    for (const { grant } of this.waiting.splice(0)) grant(false);
    const settled = [...this.connections].map((conn) => {
      conn.socket.destroy();
      return conn.idle();
    });
    await Promise.allSettled(settled);
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  log(message: string): void {
    if (this.debug) console.log(`[pglite-wire] ${message}`);
  }

  private accept(socket: Socket): void {
    socket.setNoDelay(true);
    if (this.stopping) {
      socket.destroy();
      return;
    }
    if (this.connections.size >= this.maxConnections) {
      // What Postgres says past max_connections; sent before the startup is read, which every
      // client takes as the connection's failure.
      socket.end(errorResponse("FATAL", "53300", "sorry, too many clients already"));
      socket.on("error", () => {});
      return;
    }
    const conn = new Connection(this, this.nextId++, socket);
    this.connections.add(conn);
    this.log(`#${conn.id} connected (${this.connections.size} open)`);
  }

  /** called once a connection has finished with the backend for good */
  forget(conn: Connection): void {
    this.connections.delete(conn);
    this.log(`#${conn.id} gone (${this.connections.size} open)`);
  }

  /** whether a connection other than `conn` has a session and is still open */
  othersInSession(conn: Connection): boolean {
    for (const other of this.connections) if (other !== conn && other.inSession) return true;
    return false;
  }

  /** Resolves true once `conn` owns the backend; false if the wait was cancelled. */
  acquire(conn: Connection): Promise<boolean> {
    if (this.stopping) return Promise.resolve(false);
    if (this.owner === conn) return Promise.resolve(true);
    if (!this.owner) {
      this.setOwner(conn);
      return Promise.resolve(true);
    }
    return new Promise((grant) => this.waiting.push({ conn, grant }));
  }

  release(conn: Connection): void {
    if (this.owner !== conn) return;
    this.owner = null;
    const next = this.waiting.shift();
    if (next) {
      this.setOwner(next.conn);
      next.grant(true);
    }
  }

  /** Takes a connection out of the queue (it went away with nothing to clean up). */
  cancelWait(conn: Connection): void {
    const i = this.waiting.findIndex((w) => w.conn === conn);
    if (i >= 0) this.waiting.splice(i, 1)[0]!.grant(false);
  }

  private setOwner(conn: Connection): void {
    this.owner = conn;
    this.ownerSince = Date.now();
    this.ownerWarned = false;
  }

  private checkHold(): void {
    const owner = this.owner;
    if (!owner || this.ownerWarned || this.waiting.length === 0) return;
    const held = Date.now() - this.ownerSince;
    if (held < this.holdWarningMs) return;
    this.ownerWarned = true;
    console.warn(
      `[pglite-wire] connection #${owner.id} has held the embedded Postgres for ${Math.round(held / 1000)} s ` +
        `(transaction status ${owner.txStatus}${owner.inCycle ? ", request unfinished" : ""}) ` +
        `while ${this.waiting.length} other connection(s) wait: PGlite runs one transaction at a time, ` +
        `so a transaction left open (or one that waits for another connection) stops them all`,
    );
  }

  /** Runs protocol bytes on the backend (the caller owns it) and returns the backend's answer. */
  async exec(bytes: Uint8Array): Promise<Buffer> {
    const out = await this.db.runExclusive(() => this.db.execProtocolRaw(bytes));
    // Copy: for a startup packet PGlite returns a view of its receive buffer, which the next
    // call overwrites while the socket may still be writing it.
    return Buffer.from(out);
  }
}

class Connection {
  /** ReadyForQuery status after the last finished cycle */
  txStatus: TxStatus = "I";
  /** messages went to the backend and their cycle has not ended with ReadyForQuery yet */
  inCycle = false;
  private holds = false;
  private phase: "startup" | "session" | "closed" = "startup";
  /** the startup packet has been read (it may still wait for the backend) */
  private gotStartup = false;
  /** the backend has answered the startup packet */
  private hadSession = false;
  private buffer: Buffer = Buffer.alloc(0);
  private readonly frames: Frame[] = [];
  /** backend names of this connection's named statements */
  private readonly statements = new Set<string>();
  /** this connection's work, one step after another: cycles, then the cleanup */
  private chain: Promise<void> = Promise.resolve();
  private draining = false;

  constructor(
    private readonly server: PgliteWireServer,
    readonly id: number,
    readonly socket: Socket,
  ) {
    socket.on("data", (data: Buffer) => this.onData(data));
    socket.on("error", () => this.close());
    socket.on("close", () => this.close());
  }

  get closed(): boolean {
    return this.phase === "closed";
  }

  /** the backend has answered its startup and it has not gone away */
  get inSession(): boolean {
    return this.hadSession && this.phase !== "closed";
  }

  /** resolves when this connection's queued work (and cleanup) has run */
  idle(): Promise<void> {
    return this.chain;
  }

  private then(step: () => Promise<void>): void {
    this.chain = this.chain.then(step).catch((err) => {
      console.error(`[pglite-wire] connection #${this.id}:`, err);
      this.fatal("XX000", `embedded Postgres: ${(err as Error)?.message ?? String(err)}`);
    });
  }

  private onData(data: Buffer): void {
    if (this.phase === "closed") return;
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, data]) : data;
    try {
      this.split();
    } catch (err) {
      this.fatal("08P01", (err as Error).message);
      return;
    }
    if (this.frames.length && !this.draining) {
      this.draining = true;
      this.then(() => this.drain());
    }
  }

  /** Cuts the buffered bytes into frames; answers the pre-startup negotiation directly. */
  private split(): void {
    let at = 0;
    const buf = this.buffer;
    while (true) {
      if (!this.gotStartup) {
        if (buf.length - at < 8) break;
        const length = buf.readInt32BE(at);
        const code = buf.readInt32BE(at + 4);
        if (length < 8 || length > MAX_STARTUP_LENGTH) throw new Error("invalid length of startup packet");
        if (buf.length - at < length) break;
        const packet = buf.subarray(at, at + length);
        at += length;
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          this.socket.write("N");
        } else if (code === CANCEL_REQUEST) {
          // No backend process to signal; Postgres closes a cancel connection without a word.
          this.phase = "closed";
          this.cleanupDone = true;
          this.socket.end();
          this.server.forget(this);
          break;
        } else if (code >>> 16 === PROTOCOL_MAJOR_3) {
          this.gotStartup = true;
          this.frames.push({ type: "", bytes: Buffer.from(packet) });
        } else {
          throw new Error(`unsupported frontend protocol ${code >>> 16}.${code & 0xffff}`);
        }
        continue;
      }
      if (buf.length - at < 5) break;
      const length = buf.readInt32BE(at + 1);
      if (length < 4 || length > MAX_MESSAGE_LENGTH) throw new Error("invalid message length");
      if (buf.length - at < 1 + length) break;
      this.frames.push({ type: String.fromCharCode(buf[at]!), bytes: Buffer.from(buf.subarray(at, at + 1 + length)) });
      at += 1 + length;
    }
    this.buffer = at === buf.length ? Buffer.alloc(0) : buf.subarray(at);
  }

  /** Runs the queued frames, cycle by cycle, with the backend held as the protocol needs. */
  private async drain(): Promise<void> {
    try {
      while (this.frames.length && this.phase !== "closed") {
        if (this.frames[0]!.type === "X" && !this.holds) {
          this.terminate();
          return;
        }
        if (!this.holds) {
          if (!(await this.server.acquire(this))) return;
          this.holds = true;
          // It went away while waiting: the cleanup that follows in the chain uses the backend.
          if (this.closed) return;
        }
        const batch: Buffer[] = [];
        let terminate = false;
        let violation: string | null = null;
        while (this.frames.length) {
          const frame = this.frames[0]!;
          if (frame.type === "") {
            // the startup packet goes alone: PGlite answers it on a path of its own
            if (batch.length) break;
            this.frames.shift();
            batch.push(frame.bytes);
            break;
          }
          this.frames.shift();
          if (this.phase === "startup") {
            violation = `expected startup message, got message type ${frame.bytes[0]}`;
            break;
          }
          if (frame.type === "X") {
            terminate = true;
            break;
          }
          if (!FRONTEND_TYPES.has(frame.type)) {
            violation = `invalid frontend message type ${frame.bytes[0]}`;
            break;
          }
          batch.push(this.rewrite(frame));
        }
        if (batch.length) await this.run(Buffer.concat(batch), batch[0]![0] === 0);
        if (violation) {
          this.fatal("08P01", violation);
          return;
        }
        if (terminate) {
          this.terminate();
          return;
        }
      }
    } finally {
      this.draining = false;
    }
  }

  /**
   * Terminate: the connection closes at once, as on a real server, unless it holds the backend
   * (then after its cleanup, which is immediate). A cleanup that waits for the backend is queued
   * before anything the client can send on a new connection, so that finds it done.
   */
  private terminate(): void {
    this.server.log(`#${this.id} Terminate`);
    this.phase = "closed";
    this.frames.length = 0;
    if (!this.holds) this.socket.end();
    this.then(() => this.cleanup());
  }

  /** Sends one batch to the backend, the answer to the client, and keeps or frees the backend. */
  private async run(bytes: Buffer, startup: boolean): Promise<void> {
    const out = await this.server.exec(bytes);
    if (startup) {
      this.hadSession = true;
      if (this.phase === "startup") this.phase = "session";
    }
    if (out.length && this.socket.writable) this.socket.write(out);
    this.track(out);
    if (!this.inCycle && this.txStatus === "I") this.letGo();
  }

  /** Follows the backend's answer: a cycle ends with ReadyForQuery, which carries the status. */
  private track(out: Buffer): void {
    if (out.length === 0) {
      // a Flush, CopyData, or messages skipped until Sync after an error: the cycle goes on
      this.inCycle = true;
      return;
    }
    let at = 0;
    let last = "";
    let status: TxStatus | null = null;
    while (at + 5 <= out.length) {
      last = String.fromCharCode(out[at]!);
      const length = out.readInt32BE(at + 1);
      if (last === "Z" && at + 5 < out.length) status = String.fromCharCode(out[at + 5]!) as TxStatus;
      at += 1 + length;
    }
    if (last === "Z" && status) {
      this.inCycle = false;
      this.txStatus = status;
    } else {
      this.inCycle = true;
    }
  }

  private letGo(): void {
    if (!this.holds) return;
    this.holds = false;
    this.server.release(this);
  }

  /**
   * Gives the extended protocol's named statements a per-connection name on the backend, and
   * notes who made the unnamed statement.
   */
  private rewrite(frame: Frame): Buffer {
    const b = frame.bytes;
    switch (frame.type) {
      case "P": {
        // Parse: name, query, parameter types
        const end = b.indexOf(0, 5);
        const name = b.subarray(5, end);
        if (name.length === 0) {
          this.server.unnamedStatementBy = this;
          return b;
        }
        const backend = this.backendName(name);
        this.statements.add(backend.toString("latin1"));
        return message("P", [backend, b.subarray(end)]);
      }
      case "B": {
        // Bind: portal, statement, ...
        const portalEnd = b.indexOf(0, 5);
        const nameEnd = b.indexOf(0, portalEnd + 1);
        const name = b.subarray(portalEnd + 1, nameEnd);
        if (name.length === 0) return b;
        return message("B", [b.subarray(5, portalEnd + 1), this.backendName(name), b.subarray(nameEnd)]);
      }
      case "D":
      case "C": {
        // Describe / Close: 'S' statement or 'P' portal, name
        if (b[5] !== 0x53) return b;
        const end = b.indexOf(0, 6);
        const name = b.subarray(6, end);
        if (name.length === 0) return b;
        const backend = this.backendName(name);
        if (frame.type === "C") this.statements.delete(backend.toString("latin1"));
        return message(frame.type, [Buffer.from("S"), backend, b.subarray(end)]);
      }
      default:
        return b;
    }
  }

  /** `<name>@<id>`, or a digest of the name when that would pass Postgres' 63-byte limit */
  private backendName(name: Buffer): Buffer {
    const significant = name.subarray(0, MAX_NAME_BYTES);
    const suffix = Buffer.from(`@${this.id}`);
    if (significant.length + suffix.length <= MAX_NAME_BYTES) return Buffer.concat([significant, suffix]);
    const digest = createHash("sha256").update(significant).digest("hex").slice(0, 32);
    return Buffer.from(`${digest}${suffix.toString()}`);
  }

  /** The client went away (or broke the protocol): stop reading, clean up, say goodbye. */
  close(): void {
    if (this.phase === "closed") {
      return;
    }
    this.phase = "closed";
    this.frames.length = 0;
    // Waiting for the backend only to find the client gone: leave the queue, unless there is
    // something of ours on the backend to clean up.
    if (!this.needsBackend()) this.server.cancelWait(this);
    this.then(() => this.cleanup());
  }

  private needsBackend(): boolean {
    return this.holds || this.statements.size > 0 || this.server.unnamedStatementBy === this || this.isLast();
  }

  /** the last connection out of the session: its cleanup resets the session */
  private isLast(): boolean {
    return this.hadSession && !this.server.othersInSession(this);
  }

  private cleanupDone = false;

  private async cleanup(): Promise<void> {
    if (this.cleanupDone) return;
    this.cleanupDone = true;
    try {
      if (this.server.isStopping || !this.needsBackend()) return;
      if (!this.holds) {
        if (!(await this.server.acquire(this))) return;
        this.holds = true;
      }
      if (this.inCycle) {
        // End whatever the client left half-sent: CopyFail ends a COPY FROM STDIN (and is
        // ignored otherwise), Sync ends an extended-protocol cycle.
        this.track(
          await this.server.exec(Buffer.concat([message("f", [cstring("client disconnected")]), message("S", [])])),
        );
      }
      if (this.txStatus !== "I") {
        this.server.log(`#${this.id} gone in a transaction (${this.txStatus}): ROLLBACK`);
        this.track(await this.server.exec(message("Q", [cstring("ROLLBACK")])));
      }
      const closes = [...this.statements].map((name) => message("C", [Buffer.from("S"), cstring(name)]));
      if (this.server.unnamedStatementBy === this) {
        closes.push(message("C", [Buffer.from("S"), cstring("")]));
        this.server.unnamedStatementBy = null;
      }
      this.statements.clear();
      if (closes.length) this.track(await this.server.exec(Buffer.concat([...closes, message("S", [])])));
      // The last one out resets the session, as the next connection would find a new one.
      // (Decided here, holding the backend: no other connection can start a session meanwhile.)
      if (this.isLast() && this.txStatus === "I") {
        this.track(await this.server.exec(message("Q", [cstring("DISCARD ALL")])));
      }
    } finally {
      this.letGo();
      this.server.forget(this);
      // end, not destroy: a FATAL ErrorResponse may still be on its way out
      if (!this.socket.destroyed) {
        this.socket.end();
        setTimeout(() => this.socket.destroy(), 2_000).unref();
      }
    }
  }

  /** Tells the client why, the way Postgres does (ErrorResponse FATAL), and closes. */
  private fatal(code: string, text: string): void {
    if (this.socket.writable) this.socket.end(errorResponse("FATAL", code, text));
    this.close();
  }
}

function cstring(s: string): Buffer {
  return Buffer.from(`${s}\0`, "utf8");
}

function message(type: string, parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(5);
  head.write(type, 0, "latin1");
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}

function errorResponse(severity: string, code: string, text: string): Buffer {
  return message("E", [
    Buffer.from("S"),
    cstring(severity),
    Buffer.from("V"),
    cstring(severity),
    Buffer.from("C"),
    cstring(code),
    Buffer.from("M"),
    cstring(text),
    Buffer.from([0]),
  ]);
}
