import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One call of a step of test/workers/fixtures/durable-workflow-worker.ts: the run's input and the step's number. */
export interface StepCall {
  run: string;
  step: number;
  at: number;
}

export interface StepRecorder {
  url: string;
  calls: StepCall[];
  close(): Promise<void>;
}

/**
 * What the durable workflow fixture's steps report to: records each call and answers it after
 * `delayMs` (plus up to `jitterMs`), so steps are slow enough to be caught mid-way by a kill.
 */
export function startStepRecorder(opts: { delayMs: number; jitterMs?: number }): Promise<StepRecorder> {
  const calls: StepCall[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      calls.push({ ...(JSON.parse(body) as Omit<StepCall, "at">), at: Date.now() });
      const wait = opts.delayMs + Math.random() * (opts.jitterMs ?? 0);
      setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end("{}"), wait);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        calls,
        close: () => new Promise<void>((r) => server.close(() => r())),
      }),
    ),
  );
}
