import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { freePort } from "../../src/cli/local/pglite-server.js";
import { descendants } from "../../src/cli/local/runtime-watch.js";
import { runDevToExit, startDev } from "../support/dev-server.js";
import { until } from "../support/until.js";

const JSON_BODY = { "content-type": "application/json" };

/** An oversized body sent chunked on a raw connection; resolves with the answer's head once the server has closed the connection (or after `waitMs`). */
function oversizedChunked(
  url: string,
  opts: { dropAfterAnswer: boolean; waitMs: number },
): Promise<{ head: string; closedByServer: boolean }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let got = "";
    let closedByServer = false;
    const done = () => resolve({ head: got.slice(0, got.indexOf("\r\n\r\n") + 1 || undefined), closedByServer });
    socket.on("error", () => undefined);
    socket.write(
      `POST /sessions HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    const chunk = "x".repeat(64 * 1024);
    // 1.5 MiB, past the 1 MiB limit, and no final chunk: the client is still "sending".
    for (let i = 0; i < 24; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    socket.on("data", (d) => {
      got += d;
      if (opts.dropAfterAnswer && got.includes("\r\n\r\n")) socket.destroy();
    });
    socket.on("end", () => (closedByServer = true));
    socket.on("close", done);
    setTimeout(() => {
      socket.destroy();
    }, opts.waitMs).unref();
  });
}

/** Requests from other clients (each its own connection), reads and writes; their statuses and how long the batch took. */
async function batch(url: string, tag: string): Promise<{ statuses: number[]; ms: number }> {
  const start = performance.now();
  const statuses = await Promise.all(
    Array.from({ length: 6 }, async (_, i) => {
      try {
        const res =
          i % 2 === 0
            ? await fetch(`${url}/info`, { signal: AbortSignal.timeout(30_000) })
            : await fetch(`${url}/sessions`, {
                method: "POST",
                headers: JSON_BODY,
                body: JSON.stringify({ session_id: `${tag}-${i}`, agent_id: "dev" }),
                signal: AbortSignal.timeout(30_000),
              });
        await res.arrayBuffer();
        return res.status;
      } catch {
        return 0; // no answer
      }
    }),
  );
  return { statuses, ms: performance.now() - start };
}

/** `npm run dev` under faults: hostile bodies, a runtime that dies, a database that is not there. */
describe("npm run dev under faults", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "agno-dev-faults-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("refuses an oversized chunked body with 413 and a closed connection, and other clients are answered as before", async () => {
    const dev = await startDev({ AGNO_DEV_DATA: join(dataDir, "body") });
    try {
      let baseline = 0;
      for (let i = 0; i < 3; i++) {
        const warm = await batch(dev.url, `warm${i}`);
        expect(warm.statuses).toEqual([200, 201, 200, 201, 200, 201]);
        baseline = Math.max(baseline, warm.ms);
      }
      for (let round = 0; round < 6; round++) {
        const oversized = await oversizedChunked(dev.url, { dropAfterAnswer: round % 2 === 1, waitMs: 15_000 });
        expect(oversized.head).toMatch(/^HTTP\/1\.1 413 /);
        if (round % 2 === 0) {
          // The client kept its side open: the server is the one that closed the connection.
          expect(oversized.head.toLowerCase()).toContain("connection: close");
          expect(oversized.closedByServer).toBe(true);
        }
        const after = await batch(dev.url, `after${round}`);
        expect(after.statuses, `round ${round}`).toEqual([200, 201, 200, 201, 200, 201]);
        expect(
          after.ms,
          `round ${round}: ${Math.round(after.ms)} ms against ${Math.round(baseline)} ms before`,
        ).toBeLessThan(baseline * 20);
      }
    } finally {
      await dev.stop();
    }
  }, 240_000);

  it("restarts the runtime when workerd is killed, and serves again", async () => {
    const dev = await startDev({ AGNO_DEV_DATA: join(dataDir, "restart") });
    try {
      const workerd = (await descendants(dev.pid)).filter((p) => /workerd/.test(p.name));
      expect(workerd.length).toBeGreaterThan(0);
      for (const { pid } of workerd) process.kill(pid, "SIGKILL");
      const info = await until(
        () => fetch(`${dev.url}/info`, { signal: AbortSignal.timeout(5000) }).then((r) => r.status),
        (status) => status === 200,
        "dev to serve again after workerd was killed",
        { ms: 120_000, every: 500, retryErrors: true },
      );
      expect(info).toBe(200);
      const created = await fetch(`${dev.url}/sessions`, {
        method: "POST",
        headers: JSON_BODY,
        body: JSON.stringify({ session_id: "after-restart", agent_id: "dev" }),
      });
      expect(created.status).toBe(201);
      // WebSockets reach the new runtime through the dev server's port too.
      const socket = new WebSocket(`${dev.url.replace("http", "ws")}/ws`);
      const pong = await new Promise<unknown>((resolve, reject) => {
        socket.once("open", () => socket.send(JSON.stringify({ action: "ping", id: "p1" })));
        socket.once("message", (data) => resolve(JSON.parse(String(data))));
        socket.once("error", reject);
      });
      socket.close();
      expect(pong).toMatchObject({ event: "pong", request_id: "p1" });
      expect(dev.output().match(/runtime \(workerd\) died: restarting it/g)).toHaveLength(1);
      // The killed runtime's processes are gone, replaced by new ones.
      const now = (await descendants(dev.pid)).filter((p) => /workerd/.test(p.name)).map((p) => p.pid);
      expect(now.length).toBeGreaterThan(0);
      expect(now.filter((pid) => workerd.some((w) => w.pid === pid))).toEqual([]);
    } finally {
      await dev.stop();
    }
  }, 240_000);

  it("exits with one clear line and a non-zero code when DATABASE_URL cannot be reached", async () => {
    const port = await freePort(); // nothing listens there
    const { code, output } = await runDevToExit({
      AGNO_DEV_DATA: join(dataDir, "unreachable"),
      DATABASE_URL: `postgres://agno:s3cret-pw@127.0.0.1:${port}/agno`,
    });
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    const lines = output.trim().split("\n");
    expect(lines.filter((l) => l.includes(`127.0.0.1:${port}`) && /cannot reach the database/.test(l))).toHaveLength(1);
    expect(output).not.toContain("s3cret-pw");
    expect(output).not.toMatch(/^\s+at /m); // no stack trace
    expect(lines.length).toBeLessThanOrEqual(2); // "using DATABASE_URL (host)" and the reason
  });

  it("exits with one clear line naming the port when PORT is taken, before it starts anything", async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, "127.0.0.1", r));
    const port = (taken.address() as { port: number }).port;
    try {
      const { code, output } = await runDevToExit({ AGNO_DEV_DATA: join(dataDir, "port-taken"), PORT: String(port) });
      expect(code).toBe(1);
      expect(output.trim().split("\n")).toEqual([`[agno-edge] port ${port} is in use: set PORT to another one`]);
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });

  it("exits with one clear line when the DATABASE_URL server accepts connections but never answers", async () => {
    const held = new Set<Socket>();
    const blackHole = createServer((socket) => void held.add(socket.on("error", () => undefined)));
    await new Promise<void>((r) => blackHole.listen(0, "127.0.0.1", r));
    const port = (blackHole.address() as { port: number }).port;
    try {
      const { code, output } = await runDevToExit({
        AGNO_DEV_DATA: join(dataDir, "black-hole"),
        DATABASE_URL: `postgres://agno:s3cret-pw@127.0.0.1:${port}/agno`,
      });
      expect(code).not.toBe(0);
      expect(code).not.toBeNull();
      expect(
        output.split("\n").filter((l) => l.includes(`127.0.0.1:${port}`) && /did not answer/.test(l)),
      ).toHaveLength(1);
      expect(output).not.toContain("s3cret-pw");
      expect(output).not.toMatch(/^\s+at /m);
    } finally {
      for (const socket of held) socket.destroy();
      blackHole.close();
    }
  }, 120_000);
});
