import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent } from "../../src/agent/agent.js";
import type { ToolExecution } from "../../src/agent/run-output.js";
import type { Tool, Toolkit } from "../../src/tools/tool.js";
import { scriptedModel } from "./agent-kit.js";

/**
 * Runs one scripted tool call through an Agent (the path a user's model takes): the call's
 * execution as the run stored it, and the messages the model was sent after it.
 */
export async function callThroughAgent(
  tools: Array<Tool | Toolkit>,
  name: string,
  args: Record<string, unknown> | string,
  opts: { userId?: string; sessionId?: string } = {},
): Promise<{ execution: ToolExecution; toolMessage: string }> {
  const { model, script } = await scriptedModel([{ toolCalls: [{ name, arguments: args }] }, { text: "done" }]);
  const agent = new Agent({ id: "toolkit-test", model, tools });
  const out = await agent.run("go", { userId: opts.userId, sessionId: opts.sessionId });
  const execution = out.tools?.[0];
  if (!execution) throw new Error(`the run made no tool call (status ${out.status}): ${out.content}`);
  const second = (await script.requests())[1]!.body.messages as Array<{ role: string; content: unknown }>;
  const toolMessage = second.find((m) => m.role === "tool");
  return { execution, toolMessage: String(toolMessage?.content ?? "") };
}

/** What a fake upstream server received for one request. */
export interface RecordedHttp {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface FakeServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: RecordedHttp[];
  close(): Promise<void>;
}

/** A local HTTP server speaking whatever `handle` answers, recording every request. */
export async function fakeServer(handle: (req: RecordedHttp, res: ServerResponse) => unknown): Promise<FakeServer> {
  const requests: RecordedHttp[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://local");
      const rec: RecordedHttp = {
        method: req.method ?? "GET",
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(rec);
      Promise.resolve(handle(rec, res)).catch((e: unknown) => {
        res.statusCode = 500;
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * A fetch that sends requests for public host names to a local server: the toolkit checks the
 * public URL (as it would in production) and the bytes come from the fake, over real HTTP.
 */
export function routedFetch(routes: Record<string, string>): typeof fetch {
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const target = routes[url.host];
    if (!target) return Promise.reject(new TypeError(`no route for ${url.host}`));
    const local = new URL(url.pathname + url.search, target);
    return fetch(local, init);
  };
}
