import { connect, type Socket } from "node:net";

/**
 * A bare Postgres wire-protocol client over TCP, for tests that need to control what goes on the
 * wire and when: a cycle sent in pieces, a connection dropped halfway through a transaction.
 */

export interface BackendMessage {
  type: string;
  body: Buffer;
}

export interface CycleResult {
  messages: BackendMessage[];
  /** ReadyForQuery's transaction status: I, T or E */
  status: string;
  /** text of every DataRow column, row by row */
  rows: (string | null)[][];
  /** ErrorResponse messages (field M) */
  errors: string[];
  /** ErrorResponse SQLSTATE codes (field C) */
  codes: string[];
}

export const wire = {
  startup(params: Record<string, string> = { user: "postgres", database: "postgres" }): Buffer {
    const body = Buffer.concat([
      ...Object.entries(params).map(([k, v]) => Buffer.from(`${k}\0${v}\0`)),
      Buffer.from([0]),
    ]);
    const head = Buffer.alloc(8);
    head.writeInt32BE(8 + body.length, 0);
    head.writeInt32BE(196608, 4);
    return Buffer.concat([head, body]);
  },
  sslRequest(): Buffer {
    const b = Buffer.alloc(8);
    b.writeInt32BE(8, 0);
    b.writeInt32BE(80877103, 4);
    return b;
  },
  message(type: string, ...parts: Buffer[]): Buffer {
    const body = Buffer.concat(parts);
    const head = Buffer.alloc(5);
    head.write(type, 0, "latin1");
    head.writeInt32BE(4 + body.length, 1);
    return Buffer.concat([head, body]);
  },
  cstr(s: string): Buffer {
    return Buffer.from(`${s}\0`);
  },
  query(sql: string): Buffer {
    return wire.message("Q", wire.cstr(sql));
  },
  parse(name: string, sql: string): Buffer {
    return wire.message("P", wire.cstr(name), wire.cstr(sql), Buffer.from([0, 0]));
  },
  /** Bind with text parameters and text results */
  bind(portal: string, statement: string, values: (string | null)[] = []): Buffer {
    const count = Buffer.alloc(2);
    count.writeInt16BE(values.length);
    const params = values.map((v) => {
      if (v === null) return Buffer.from([0xff, 0xff, 0xff, 0xff]);
      const bytes = Buffer.from(v);
      const len = Buffer.alloc(4);
      len.writeInt32BE(bytes.length);
      return Buffer.concat([len, bytes]);
    });
    return wire.message(
      "B",
      wire.cstr(portal),
      wire.cstr(statement),
      Buffer.from([0, 0]),
      count,
      ...params,
      Buffer.from([0, 0]),
    );
  },
  describePortal(portal: string): Buffer {
    return wire.message("D", Buffer.from("P"), wire.cstr(portal));
  },
  execute(portal = ""): Buffer {
    return wire.message("E", wire.cstr(portal), Buffer.from([0, 0, 0, 0]));
  },
  sync(): Buffer {
    return wire.message("S");
  },
  terminate(): Buffer {
    return wire.message("X");
  },
};

export class RawPg {
  private buffer = Buffer.alloc(0);
  private readonly messages: BackendMessage[] = [];
  private waiter: (() => void) | null = null;
  /** resolves when the server has closed the connection */
  readonly closed: Promise<void>;
  isClosed = false;

  private constructor(readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on("data", (data: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, data]);
      while (this.buffer.length >= 5) {
        const length = this.buffer.readInt32BE(1);
        if (this.buffer.length < 1 + length) break;
        this.messages.push({ type: String.fromCharCode(this.buffer[0]!), body: this.buffer.subarray(5, 1 + length) });
        this.buffer = this.buffer.subarray(1 + length);
      }
      this.wake();
    });
    this.closed = new Promise((resolve) => {
      socket.on("close", () => {
        this.isClosed = true;
        this.wake();
        resolve();
      });
    });
    socket.on("error", () => {});
  }

  /** Opens a TCP connection, without the startup. */
  static async open(port: number): Promise<RawPg> {
    const socket = connect({ host: "127.0.0.1", port });
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    return new RawPg(socket);
  }

  /** Opens a connection and completes the startup. */
  static async connect(port: number): Promise<RawPg> {
    const pg = await RawPg.open(port);
    pg.send(wire.startup());
    const ready = await pg.untilReady();
    if (ready.errors.length) throw new Error(`startup failed: ${ready.errors.join("; ")}`);
    return pg;
  }

  send(...messages: Buffer[]): void {
    this.socket.write(Buffer.concat(messages));
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }

  /** the next backend message; rejects if the connection closes first */
  async next(): Promise<BackendMessage> {
    while (this.messages.length === 0) {
      if (this.isClosed) throw new Error("connection closed");
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
    return this.messages.shift()!;
  }

  /** reads messages up to and including ReadyForQuery */
  async untilReady(): Promise<CycleResult> {
    const result: CycleResult = { messages: [], status: "", rows: [], errors: [], codes: [] };
    while (true) {
      const m = await this.next();
      result.messages.push(m);
      if (m.type === "D") result.rows.push(parseDataRow(m.body));
      if (m.type === "E") {
        const fields = parseFields(m.body);
        result.errors.push(fields.M ?? "");
        result.codes.push(fields.C ?? "");
      }
      if (m.type === "Z") {
        result.status = String.fromCharCode(m.body[0]!);
        return result;
      }
    }
  }

  /** a simple Query, to ReadyForQuery */
  async query(sql: string): Promise<CycleResult> {
    this.send(wire.query(sql));
    return this.untilReady();
  }

  destroy(): void {
    this.socket.destroy();
  }
}

function parseDataRow(body: Buffer): (string | null)[] {
  const count = body.readInt16BE(0);
  const row: (string | null)[] = [];
  let at = 2;
  for (let i = 0; i < count; i++) {
    const length = body.readInt32BE(at);
    at += 4;
    if (length < 0) row.push(null);
    else {
      row.push(body.subarray(at, at + length).toString());
      at += length;
    }
  }
  return row;
}

export function parseFields(body: Buffer): Record<string, string> {
  const fields: Record<string, string> = {};
  let at = 0;
  while (at < body.length && body[at] !== 0) {
    const code = String.fromCharCode(body[at]!);
    const end = body.indexOf(0, at + 1);
    fields[code] = body.subarray(at + 1, end).toString();
    at = end + 1;
  }
  return fields;
}
