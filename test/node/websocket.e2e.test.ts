import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startDev } from "../support/dev-server.js";

/** The client's close answered with its own code. Unanswered, the client sees 1006 (abnormal closure) once the server drops the connection. */
async function closesWith(ws: WebSocket, code: number, reason: string) {
  const closed = new Promise<[number, string]>((resolve) => ws.once("close", (c, r) => resolve([c, String(r)])));
  ws.close(code, reason);
  expect(await closed).toEqual([code, reason]);
}

/** `GET /ws` and `GET /workflows/ws` under a real `npm run dev`: what a browser or a CLI client sees when it closes its socket. */
describe("WebSocket under npm run dev", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "agno-ws-dev-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("answers each client close with the client's code, and the runtime logs no hung request", async () => {
    const dev = await startDev({ AGNO_DEV_DATA: dataDir });
    try {
      for (const [code, reason] of [
        [1000, "bye"],
        [4000, "app-defined"],
      ] as const) {
        const ws = new WebSocket(`${dev.url.replace("http", "ws")}/ws`);
        await new Promise((resolve, reject) => (ws.once("open", resolve), ws.once("error", reject)));
        ws.send(JSON.stringify({ action: "ping", id: "p" }));
        expect(JSON.parse(String(await new Promise((resolve) => ws.once("message", resolve))))).toMatchObject({
          event: "pong",
          request_id: "p",
        });
        await closesWith(ws, code, reason);
        // agno's workflow socket: its greeting first, then its own ping.
        const flows = new WebSocket(`${dev.url.replace("http", "ws")}/workflows/ws`);
        const frames: unknown[] = [];
        const pong = new Promise((resolve) =>
          flows.on("message", (data) => {
            frames.push(JSON.parse(String(data)));
            if (frames.length === 2) resolve(frames);
          }),
        );
        await new Promise((resolve, reject) => (flows.once("open", resolve), flows.once("error", reject)));
        flows.send(JSON.stringify({ action: "ping" }));
        expect(await pong).toEqual([
          { event: "connected", message: "Connected to AgentOS.", requires_auth: false },
          { event: "pong" },
        ]);
        await closesWith(flows, code, reason);
      }
      // One more request after both closes: whatever the runtime logs about them is out by then.
      expect((await fetch(`${dev.url}/info`)).status).toBe(200);
      expect(dev.output()).toMatch(/GET \/ws 101/);
      expect(dev.output()).toMatch(/GET \/workflows\/ws 101/);
      expect(dev.output()).not.toMatch(/had hung|Uncaught/);
    } finally {
      expect(await dev.stop()).toBe(0);
    }
  });
});
