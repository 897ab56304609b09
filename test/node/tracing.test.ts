import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type { SpanRecord, TraceRecord, TraceWriter } from "../../src/db/ports/trace-store.js";
import { Team } from "../../src/team/team.js";
import { tool } from "../../src/tools/tool.js";
import { HumanReview } from "../../src/workflow/human-review.js";
import { Step } from "../../src/workflow/step.js";
import { Workflow } from "../../src/workflow/workflow.js";
import { DbSpanExporter } from "../../src/tracing/db-exporter.js";
import { OtlpHttpExporter, parseOtlpHeaders } from "../../src/tracing/otlp-http-exporter.js";
import { ratioSampler } from "../../src/tracing/sampler.js";
import { formatTraceparent, parseTraceparent } from "../../src/tracing/traceparent.js";
import { Tracer } from "../../src/tracing/tracer.js";
import { memoryTestDb, scriptedModel } from "../support/agent-kit.js";
import { drainQueue } from "../support/drain-queue.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { MemoryDb } from "../../src/db/memory/index.js";
import type { TracingSettings } from "../../src/tracing/tracing-settings.js";
import { openAIEmbedder } from "../../src/knowledge/embedders/openai-embedder.js";
import { Knowledge } from "../../src/knowledge/knowledge.js";
import { InMemoryVectorDb } from "../../src/knowledge/vectordb/in-memory-vector-db.js";
import { startEmbeddingServer } from "../support/embedding-server.js";
import { scriptedAgent } from "../support/team-kit.js";

/** An OTLP span as the receiver decodes it, attributes flattened to plain values. */
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  status: { code: number; message?: string };
  attrs: Record<string, unknown>;
}

type OtlpValue = {
  stringValue?: string;
  intValue?: string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values: OtlpValue[] };
};

function plain(v: OtlpValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return v.arrayValue?.values.map(plain);
}

/** A local OTLP/HTTP collector: decodes each JSON ExportTraceServiceRequest posted to /v1/traces. */
class Receiver {
  spans: ReceivedSpan[] = [];
  requests: Array<{ url: string; headers: IncomingMessage["headers"]; serviceName: unknown }> = [];
  private server!: Server;
  url = "";

  async start(): Promise<void> {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        const parsed = JSON.parse(body) as {
          resourceSpans: Array<{
            resource: { attributes: Array<{ key: string; value: OtlpValue }> };
            scopeSpans: Array<{
              spans: Array<Omit<ReceivedSpan, "attrs"> & { attributes: Array<{ key: string; value: OtlpValue }> }>;
            }>;
          }>;
        };
        for (const rs of parsed.resourceSpans) {
          this.requests.push({
            url: req.url ?? "",
            headers: req.headers,
            serviceName: plain(rs.resource.attributes.find((a) => a.key === "service.name")!.value),
          });
          for (const ss of rs.scopeSpans)
            for (const s of ss.spans)
              this.spans.push({ ...s, attrs: Object.fromEntries(s.attributes.map((a) => [a.key, plain(a.value)])) });
        }
        res.writeHead(200, { "content-type": "application/json" });
        res.end("{}");
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  named(prefix: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.name.startsWith(prefix));
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A TraceWriter that keeps what it is given (the real one is db.traces). */
class FakeTraceWriter implements TraceWriter {
  writes: Array<{ traces: TraceRecord[]; spans: SpanRecord[] }> = [];
  async writeTraces(traces: TraceRecord[], spans: SpanRecord[]): Promise<void> {
    this.writes.push({ traces, spans });
  }
}

const weather = tool({
  name: "get_weather",
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => `Sunny in ${city}`,
});

const receiver = new Receiver();
beforeAll(() => receiver.start());
afterAll(() => receiver.stop());

const otlpTracer = (extra: { headers?: Record<string, string> } = {}) =>
  new Tracer({ exporters: [new OtlpHttpExporter({ endpoint: `${receiver.url}/`, timeoutMs: 2000, ...extra })] });

/** The spans of one trace the receiver got. */
const ofTrace = (traceId: string) => receiver.spans.filter((s) => s.traceId === traceId);

describe("traceparent", () => {
  it("parses a valid header and formats it back", () => {
    const header = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const ctx = parseTraceparent(header);
    expect(ctx).toEqual({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", sampled: true });
    expect(formatTraceparent(ctx!)).toBe(header);
    expect(parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")?.sampled).toBe(false);
  });

  it("refuses malformed, reserved and all-zero headers", () => {
    for (const bad of [
      undefined,
      "",
      "garbage",
      "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
      "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
    ])
      expect(parseTraceparent(bad)).toBeNull();
    // A later version is read by its first four fields.
    expect(parseTraceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-more")?.spanId).toBe(
      "00f067aa0ba902b7",
    );
  });
});

describe("sampler and tracer", () => {
  it("samples by trace id: none at 0, all at 1, about the ratio between, the same answer for the same id", () => {
    const ids = Array.from({ length: 2000 }, () => new Tracer({ exporters: [] }).startSpan("x").context.traceId);
    expect(ids.filter(ratioSampler(0)).length).toBe(0);
    expect(ids.filter(ratioSampler(1)).length).toBe(ids.length);
    const half = ids.filter(ratioSampler(0.5)).length;
    expect(half).toBeGreaterThan(800);
    expect(half).toBeLessThan(1200);
    const s = ratioSampler(0.3);
    expect(ids.map(s)).toEqual(ids.map(s));
  });

  it("makes W3C-sized ids, and a child keeps its parent's trace and sampling decision", async () => {
    const writer = new FakeTraceWriter();
    const tracer = new Tracer({ exporters: [new DbSpanExporter(writer)], sampleRatio: 0 });
    const root = tracer.startSpan("root");
    expect(root.context.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(root.context.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(root.context.sampled).toBe(false);
    const child = tracer.startSpan("child", { parent: { ...root.context, sampled: true } });
    expect(child.context.traceId).toBe(root.context.traceId);
    child.end();
    root.end();
    await tracer.flush();
    // Only the child, whose parent said sampled, is recorded.
    expect(writer.writes.flatMap((w) => w.spans.map((s) => s.name))).toEqual(["child"]);
  });

  it("sends a batch once maxBatch spans have ended, and drops beyond maxQueue", async () => {
    const writer = new FakeTraceWriter();
    const tracer = new Tracer({ exporters: [new DbSpanExporter(writer)], maxBatch: 2, maxQueue: 3 });
    for (let i = 0; i < 2; i++) tracer.startSpan(`s${i}`).end();
    await tracer.flush();
    expect(writer.writes).toHaveLength(1);
    const stalled = new Tracer({
      exporters: [{ name: "never", export: () => new Promise(() => undefined) }],
      maxBatch: 100,
      maxQueue: 3,
    });
    for (let i = 0; i < 5; i++) stalled.startSpan(`s${i}`).end();
    expect(stalled.dropped).toBe(2);
  });

  it("reads OTEL_EXPORTER_OTLP_HEADERS as k=v,k=v with percent-decoded values", () => {
    expect(parseOtlpHeaders("api-key=abc%20def, x-tenant=t1")).toEqual({ "api-key": "abc def", "x-tenant": "t1" });
    expect(parseOtlpHeaders(undefined)).toEqual({});
    expect(() => parseOtlpHeaders("novalue")).toThrow(/key=value/);
  });
});

describe("an agent run, traced", () => {
  it("nests model and tool calls under the run span, with GenAI and agno attributes, in one trace", async () => {
    const { model } = await scriptedModel([
      { toolCalls: [{ id: "call_w", name: "get_weather", arguments: { city: "Paris" } }], usage: { inputTokens: 12 } },
      { text: "It is sunny in Paris.", usage: { inputTokens: 30, outputTokens: 7 } },
    ]);
    const { db } = memoryTestDb();
    const agent = new Agent({ id: "weather-agent", name: "Weather", model, tools: [weather], db });
    const tracer = otlpTracer({ headers: { "x-api-key": "k1" } });
    const out = await agent.run("Weather in Paris?", { userId: "ann", trace: { tracer, parent: null } });
    expect(out.status).toBe("COMPLETED");
    await tracer.flush();

    const [run] = receiver.spans.filter((s) => s.attrs["agno.run.id"] === out.run_id && s.name === "Weather.run");
    expect(run).toBeDefined();
    const spans = ofTrace(run!.traceId);
    expect(run!.parentSpanId).toBeUndefined();
    expect(run!.attrs).toMatchObject({
      "openinference.span.kind": "AGENT",
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.id": "weather-agent",
      "gen_ai.agent.name": "Weather",
      "agno.agent.id": "weather-agent",
      "session.id": out.session_id,
      "user.id": "ann",
      "input.value": "Weather in Paris?",
      "output.value": "It is sunny in Paris.",
      "agno.run.status": "COMPLETED",
    });
    expect(run!.status.code).toBe(1);

    const models = spans.filter((s) => s.attrs["gen_ai.operation.name"] === "chat");
    expect(models).toHaveLength(2);
    for (const m of models) {
      expect(m.parentSpanId).toBe(run!.spanId);
      expect(m.kind).toBe(3);
      expect(m.attrs).toMatchObject({
        "openinference.span.kind": "LLM",
        "gen_ai.system": model.provider,
        "gen_ai.provider.name": model.provider,
        "gen_ai.request.model": "gpt-test",
        "llm.model_name": "gpt-test",
      });
    }
    const byStart = [...models].sort((a, b) => Number(BigInt(a.startTimeUnixNano) - BigInt(b.startTimeUnixNano)));
    expect(byStart[0]!.attrs["gen_ai.response.finish_reasons"]).toEqual(["tool_calls"]);
    expect(byStart[1]!.attrs).toMatchObject({
      "gen_ai.usage.input_tokens": 30,
      "gen_ai.usage.output_tokens": 7,
      "llm.token_count.prompt": 30,
      "llm.token_count.completion": 7,
      "gen_ai.response.finish_reasons": ["stop"],
    });
    expect(typeof byStart[1]!.attrs["gen_ai.response.time_to_first_token"]).toBe("number");

    const tools = spans.filter((s) => s.attrs["gen_ai.operation.name"] === "execute_tool");
    expect(tools).toHaveLength(1);
    expect(tools[0]!.name).toBe("execute_tool get_weather");
    expect(tools[0]!.parentSpanId).toBe(run!.spanId);
    expect(tools[0]!.attrs).toMatchObject({
      "openinference.span.kind": "TOOL",
      "gen_ai.tool.name": "get_weather",
      "gen_ai.tool.call.id": "call_w",
      "tool.name": "get_weather",
      "tool.parameters": '{"city":"Paris"}',
      "agno.tool.arguments_size": 16,
      "agno.tool.outcome": "ok",
      "output.value": "Sunny in Paris",
    });
    // Children lie within their parent's time.
    for (const s of [...models, ...tools]) {
      expect(BigInt(s.startTimeUnixNano) >= BigInt(run!.startTimeUnixNano)).toBe(true);
      expect(BigInt(s.endTimeUnixNano) <= BigInt(run!.endTimeUnixNano)).toBe(true);
    }
    expect(spans).toHaveLength(4);
    const request = receiver.requests.at(-1)!;
    expect(request.url).toBe("/v1/traces");
    expect(request.headers["x-api-key"]).toBe("k1");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.serviceName).toBe("agno-edge");
  });

  it("continues the trace of an incoming traceparent, under the caller's span", async () => {
    const { model } = await scriptedModel([{ text: "Hi." }]);
    const agent = new Agent({ id: "greeter", model });
    const tracer = otlpTracer();
    const parent = parseTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")!;
    const out = await agent.run("Hello", { trace: { tracer, parent } });
    await tracer.flush();
    const spans = ofTrace(parent.traceId);
    const run = spans.find(
      (s) => s.attrs["agno.run.id"] === out.run_id && s.attrs["openinference.span.kind"] === "AGENT",
    );
    // Unnamed: agno's instrumentation calls it Agent.run.
    expect(run?.name).toBe("Agent.run");
    expect(run?.parentSpanId).toBe(parent.spanId);
    expect(spans.filter((s) => s.parentSpanId === run!.spanId).map((s) => s.attrs["gen_ai.operation.name"])).toEqual([
      "chat",
    ]);
  });

  it("records nothing of a traceparent that says not sampled", async () => {
    const { model } = await scriptedModel([{ text: "Hi." }]);
    const agent = new Agent({ id: "quiet", model });
    const tracer = otlpTracer();
    const parent = parseTraceparent("00-1af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00")!;
    const out = await agent.run("Hello", { trace: { tracer, parent } });
    expect(out.status).toBe("COMPLETED");
    await tracer.flush();
    expect(ofTrace(parent.traceId)).toEqual([]);
  });

  it("marks a failed tool call's span ERROR with its message", async () => {
    const { model } = await scriptedModel([
      { toolCalls: [{ name: "explode", arguments: {} }] },
      { text: "It failed." },
    ]);
    const explode = tool({
      name: "explode",
      parameters: z.object({}),
      execute: () => {
        throw new Error("boom");
      },
    });
    const agent = new Agent({ id: "fragile", model, tools: [explode] });
    const tracer = otlpTracer();
    const out = await agent.run("Go", { trace: { tracer, parent: null } });
    await tracer.flush();
    const run = receiver.spans.find((s) => s.attrs["agno.run.id"] === out.run_id && s.name === "Agent.run")!;
    const toolSpan = ofTrace(run.traceId).find((s) => s.attrs["gen_ai.tool.name"] === "explode")!;
    expect(toolSpan.status).toEqual({ code: 2, message: "Error: boom" });
    expect(toolSpan.attrs).toMatchObject({ "agno.tool.outcome": "error", "exception.message": "Error: boom" });
  });
});

describe("a knowledge search, traced", () => {
  it("is a RETRIEVER span under the search_knowledge_base tool call", async () => {
    const server = await startEmbeddingServer();
    try {
      const db = new MemoryDb();
      const kb = new Knowledge({
        name: "support",
        vectorDb: new InMemoryVectorDb({
          embedder: openAIEmbedder({ baseURL: server.baseURL, apiKey: "k", dimensions: 64 }),
        }),
      }).withDb(db);
      await kb.insert({ name: "guide.md", textContent: "Refunds are paid back within five business days." });
      const { model } = await scriptedModel([
        { toolCalls: [{ name: "search_knowledge_base", arguments: { query: "refunds" } }] },
        { text: "Five days." },
      ]);
      const agent = new Agent({ name: "helper", model, knowledge: kb, db });
      const tracer = otlpTracer();
      const out = await agent.run("Refunds?", { trace: { tracer, parent: null } });
      await tracer.flush();
      const run = receiver.spans.find((s) => s.attrs["agno.run.id"] === out.run_id && s.name === "helper.run")!;
      const spans = ofTrace(run.traceId);
      const call = spans.find((s) => s.attrs["gen_ai.tool.name"] === "search_knowledge_base")!;
      const search = spans.find((s) => s.name === "knowledge.search")!;
      expect(search.parentSpanId).toBe(call.spanId);
      expect(search.attrs).toMatchObject({
        "openinference.span.kind": "RETRIEVER",
        "agno.knowledge.name": "support",
        "input.value": "refunds",
        "agno.knowledge.documents": 1,
      });
    } finally {
      await server.stop();
    }
  });
});

describe("a team run, traced", () => {
  it("nests team → delegate tool call → member run → member's tool and model calls", async () => {
    const member = await scriptedAgent(
      "researcher",
      [{ toolCalls: [{ name: "get_weather", arguments: { city: "Rome" } }] }, { text: "Rome is sunny." }],
      { tools: [weather] },
    );
    const { model } = await scriptedModel([
      {
        toolCalls: [
          { id: "call_d", name: "delegate_task_to_member", arguments: { member_id: "researcher", task: "Rome?" } },
        ],
      },
      { text: "The team says: sunny." },
    ]);
    const { db } = memoryTestDb();
    const team = new Team({ id: "desk", name: "Desk", model, members: [member.agent], db });
    const tracer = otlpTracer();
    const out = await team.run("Weather in Rome?", { trace: { tracer, parent: null } });
    expect(out.status).toBe("COMPLETED");
    await tracer.flush();

    const teamSpan = receiver.spans.find((s) => s.attrs["agno.run.id"] === out.run_id && s.name === "Desk.run")!;
    expect(teamSpan.attrs).toMatchObject({ "openinference.span.kind": "AGENT", "agno.team.id": "desk" });
    expect(teamSpan.parentSpanId).toBeUndefined();
    const spans = ofTrace(teamSpan.traceId);
    const delegate = spans.find((s) => s.attrs["gen_ai.tool.name"] === "delegate_task_to_member")!;
    expect(delegate.parentSpanId).toBe(teamSpan.spanId);
    const memberRun = spans.find((s) => s.name === "researcher.run")!;
    expect(memberRun.parentSpanId).toBe(delegate.spanId);
    expect(memberRun.attrs).toMatchObject({ "agno.agent.id": "researcher", "agno.run.parent_id": out.run_id });
    const memberTool = spans.find((s) => s.attrs["gen_ai.tool.name"] === "get_weather")!;
    expect(memberTool.parentSpanId).toBe(memberRun.spanId);
    const memberModels = spans.filter(
      (s) => s.parentSpanId === memberRun.spanId && s.attrs["gen_ai.operation.name"] === "chat",
    );
    expect(memberModels).toHaveLength(2);
    // team run, 2 team model calls, delegate call, member run, 2 member model calls, member tool call
    expect(spans).toHaveLength(8);
  });
});

describe("a workflow run, traced", () => {
  it("nests workflow → step → agent run → model call, and a function step under the workflow", async () => {
    const writer = await scriptedAgent("writer", [{ text: "A poem." }]);
    const flow = new Workflow({
      id: "blog",
      name: "Blog",
      steps: [
        new Step({ name: "draft", executor: writer.agent }),
        new Step({ name: "count", executor: (input) => String(input.previous_step_content).length }),
      ],
    });
    const tracer = otlpTracer();
    const out = await flow.run("Tides", { trace: { tracer, parent: null } });
    expect(out.status).toBe("COMPLETED");
    await tracer.flush();
    const root = receiver.spans.find((s) => s.attrs["agno.run.id"] === out.run_id && s.name === "Blog.run")!;
    expect(root.attrs).toMatchObject({
      "openinference.span.kind": "CHAIN",
      "agno.workflow.id": "blog",
      "input.value": "Tides",
      "output.value": "7",
    });
    const spans = ofTrace(root.traceId);
    const draft = spans.find((s) => s.name === "draft.execute")!;
    const count = spans.find((s) => s.name === "count.execute")!;
    expect(draft.parentSpanId).toBe(root.spanId);
    expect(count.parentSpanId).toBe(root.spanId);
    expect(count.attrs).toMatchObject({ "agno.step.executor_type": "function", "output.value": "7" });
    const agentRun = spans.find((s) => s.name === "writer.run")!;
    expect(agentRun.parentSpanId).toBe(draft.spanId);
    expect(spans.find((s) => s.attrs["gen_ai.operation.name"] === "chat")?.parentSpanId).toBe(agentRun.spanId);
    expect(spans).toHaveLength(5);
  });
});

describe("the db exporter", () => {
  it("writes agno's trace and span rows: ids from the root span, times in ISO, ERROR when a span failed", async () => {
    const { model } = await scriptedModel([
      { toolCalls: [{ name: "get_weather", arguments: { city: "Oslo" } }] },
      { text: "Snow." },
    ]);
    const writer = new FakeTraceWriter();
    const agent = new Agent({ id: "w", name: "W", model, tools: [weather] });
    const tracer = new Tracer({ exporters: [new DbSpanExporter(writer)] });
    const out = await agent.run("Oslo?", { userId: "bo", sessionId: "s-1", trace: { tracer, parent: null } });
    await tracer.flush();
    expect(writer.writes).toHaveLength(1);
    const { traces, spans } = writer.writes[0]!;
    expect(traces).toHaveLength(1);
    expect(traces[0]).toMatchObject({
      name: "W.run",
      status: "OK",
      run_id: out.run_id,
      session_id: "s-1",
      user_id: "bo",
      agent_id: "w",
      team_id: null,
      workflow_id: null,
    });
    expect(spans).toHaveLength(4);
    const root = spans.find((s) => s.parent_span_id === null)!;
    expect(root).toMatchObject({
      name: "W.run",
      span_kind: "INTERNAL",
      status_code: "OK",
      trace_id: traces[0]!.trace_id,
    });
    expect(new Date(root.start_time).toISOString()).toBe(root.start_time);
    expect(traces[0]!.start_time).toBe(root.start_time);
    expect(traces[0]!.duration_ms).toBe(Date.parse(traces[0]!.end_time) - Date.parse(traces[0]!.start_time));
    expect(spans.find((s) => s.span_kind === "CLIENT")?.attributes["gen_ai.request.model"]).toBe("gpt-test");
  });

  it("takes a continued trace's ids from its local root, and leaves them null for a batch of inner spans", async () => {
    const writer = new FakeTraceWriter();
    const tracer = new Tracer({ exporters: [new DbSpanExporter(writer)] });
    const remote = parseTraceparent("00-2af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")!;
    const job = tracer.startSpan("Job.run", { parent: remote, attributes: { "agno.run.id": "r-9" } });
    const inner = tracer.startSpan("inner", { parent: job.context });
    inner.fail("bad").end();
    job.end();
    await tracer.flush();
    expect(writer.writes[0]!.traces[0]).toMatchObject({ name: "Job.run", run_id: "r-9", status: "ERROR" });
    const lone = tracer.startSpan("inner-only", { parent: job.context, attributes: { "agno.run.id": "r-x" } });
    lone.end();
    await tracer.flush();
    // Its parent is not in the batch: it is the batch's local root, so its ids are taken.
    expect(writer.writes[1]!.traces[0]).toMatchObject({ name: "inner-only", run_id: "r-x" });
  });
});

describe("a collector that is down", () => {
  const hanging = createServer(() => undefined);
  let hangingUrl = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
    hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    hanging.closeAllConnections();
    return new Promise<void>((resolve) => hanging.close(() => resolve()));
  });

  /** A port nobody listens on: opened, then closed. */
  async function closedPort(): Promise<string> {
    const s = createServer();
    await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => s.close(() => resolve()));
    return url;
  }

  for (const which of ["closed port", "hanging"] as const) {
    it(`(${which}) neither fails nor delays the run, and flush resolves within the exporter's timeout`, async () => {
      const timeoutMs = 1000;
      const endpoint = which === "closed port" ? await closedPort() : hangingUrl;
      const { model } = await scriptedModel([
        { toolCalls: [{ name: "get_weather", arguments: { city: "Lima" } }] },
        { text: "Warm." },
      ]);
      const agent = new Agent({ id: "lima", model, tools: [weather] });
      const warnings: string[] = [];
      const warn = console.warn;
      console.warn = (m: string) => void warnings.push(m);
      try {
        const tracer = new Tracer({ exporters: [new OtlpHttpExporter({ endpoint, timeoutMs })], maxBatch: 1 });
        const started = performance.now();
        // maxBatch 1: every span is sent as it ends, while the run goes on.
        const out = await agent.run("Lima?", { trace: { tracer, parent: null } });
        const runMs = performance.now() - started;
        expect(out.status).toBe("COMPLETED");
        expect(out.content).toBe("Warm.");
        // The run waited for no export: against the hanging collector, each of its three spans'
        // exports lasts the full timeout, one after another had the run waited.
        if (which === "hanging") expect(runMs).toBeLessThan(timeoutMs);
        const flushStarted = performance.now();
        await tracer.flush();
        // The exports run side by side and each gives up at its timeout.
        expect(performance.now() - flushStarted).toBeLessThan(timeoutMs * 3);
        expect(warnings.some((w) => w.includes("otlp exporter dropped"))).toBe(true);
      } finally {
        console.warn = warn;
      }
    });
  }
});

describe("an AgentOS with tracing on", () => {
  async function served(turns: Parameters<typeof scriptedModel>[0]) {
    const { model } = await scriptedModel(turns);
    const agent = new Agent({ id: "desk-agent", name: "Desk", model, tools: [weather] });
    const tracing: TracingSettings = { exporters: ["otlp"], otlp: { endpoint: receiver.url, timeoutMs: 2000 } };
    const os = new AgentOS({ agents: [agent], queue: { durable: true }, auth: { mode: "none" }, tracing });
    const db = new MemoryDb();
    const waits: Promise<unknown>[] = [];
    const ctx = { waitUntil: (p: Promise<unknown>) => void waits.push(p), passThroughOnException: () => undefined };
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      os.fetch(
        new Request("http://os.test/agents/desk-agent/runs", {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: JSON.stringify(body),
        }),
        { dbs: [db], jobs: db.jobs, queue: { wake: async () => undefined } },
        ctx,
      );
    const settled = async () => {
      while (waits.length > 0) await Promise.all(waits.splice(0));
    };
    return { agent, db, post, settled, tracing };
  }

  it("continues the caller's traceparent and flushes with waitUntil after the answer", async () => {
    const { post, settled } = await served([{ text: "Here." }]);
    const traceparent = "00-3af7651916cd43dd8448eb211c80319c-c7ad6b7169203331-01";
    const res = await post({ message: "Hi", stream: false }, { traceparent });
    expect(res.status).toBe(200);
    const out = (await res.json()) as { run_id: string };
    await settled();
    const run = ofTrace("3af7651916cd43dd8448eb211c80319c").find(
      (s) => s.attrs["agno.run.id"] === out.run_id && s.attrs["openinference.span.kind"] === "AGENT",
    )!;
    expect(run.name).toBe("Desk.run");
    expect(run.parentSpanId).toBe("c7ad6b7169203331");
  });

  it("flushes a streamed run's spans once its event stream has ended", async () => {
    const { post, settled } = await served([{ text: "Streamed." }]);
    const res = await post(
      { message: "Hi" },
      { traceparent: "00-4af7651916cd43dd8448eb211c80319c-c7ad6b7169203331-01" },
    );
    expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
    expect(await res.text()).toContain("RunCompleted");
    await settled();
    const spans = ofTrace("4af7651916cd43dd8448eb211c80319c");
    expect(spans.map((s) => s.attrs["gen_ai.operation.name"]).sort()).toEqual(["chat", "invoke_agent"]);
  });

  it("keeps the spans of a streamed run whose client left before it ended", async () => {
    const { model } = await scriptedModel([
      { toolCalls: [{ id: "call_s", name: "slow", arguments: {} }] },
      { text: "Finished alone." },
    ]);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = tool({ name: "slow", parameters: z.object({}), execute: async () => (await gate, "ok") });
    const agent = new Agent({ id: "lonely", name: "Lonely", model, tools: [slow] });
    const tracing: TracingSettings = { exporters: ["otlp"], otlp: { endpoint: receiver.url, timeoutMs: 2000 } };
    const os = new AgentOS({ agents: [agent], auth: { mode: "none" }, tracing });
    const waits: Promise<unknown>[] = [];
    const ctx = { waitUntil: (p: Promise<unknown>) => void waits.push(p), passThroughOnException: () => undefined };
    const res = await os.fetch(
      new Request("http://os.test/agents/lonely/runs", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          traceparent: "00-8af7651916cd43dd8448eb211c80319c-c7ad6b7169203331-01",
        },
        body: JSON.stringify({ message: "Hi" }),
      }),
      { dbs: [new MemoryDb()] },
      ctx,
    );
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("RunStarted");
    await reader.cancel();
    // The response's own flush has run by now; the run goes on in the background.
    await new Promise((r) => setTimeout(r, 20));
    release();
    while (waits.length > 0) await Promise.all(waits.splice(0));
    const spans = ofTrace("8af7651916cd43dd8448eb211c80319c");
    const run = spans.find((s) => s.name === "Lonely.run")!;
    expect(run.attrs["openinference.span.kind"]).toBe("AGENT");
    expect(spans.find((s) => s.attrs["gen_ai.tool.name"] === "slow")?.parentSpanId).toBe(run.spanId);
    expect(spans.filter((s) => s.attrs["gen_ai.operation.name"] === "chat")).toHaveLength(2);
  });

  it("traces an agent run's continue under the continuing request's traceparent", async () => {
    const { model } = await scriptedModel([
      { toolCalls: [{ id: "call_c", name: "guarded", arguments: {} }] },
      { text: "Done." },
    ]);
    const guarded = tool({
      name: "guarded",
      parameters: z.object({}),
      requiresConfirmation: true,
      execute: () => "ran",
    });
    const agent = new Agent({ id: "careful", name: "Careful", model, tools: [guarded] });
    const tracing: TracingSettings = { exporters: ["otlp"], otlp: { endpoint: receiver.url, timeoutMs: 2000 } };
    const os = new AgentOS({ agents: [agent], auth: { mode: "none" }, tracing });
    const db = new MemoryDb();
    const waits: Promise<unknown>[] = [];
    const ctx = { waitUntil: (p: Promise<unknown>) => void waits.push(p), passThroughOnException: () => undefined };
    const call = (path: string, body: unknown, traceparent: string) =>
      os.fetch(
        new Request(`http://os.test${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", traceparent },
          body: JSON.stringify(body),
        }),
        { dbs: [db] },
        ctx,
      );
    const paused = (await (
      await call(
        "/agents/careful/runs",
        { message: "Go", stream: false },
        "00-6af7651916cd43dd8448eb211c80319c-c7ad6b7169203331-01",
      )
    ).json()) as { run_id: string; status: string; tools: Array<Record<string, unknown>> };
    expect(paused.status).toBe("PAUSED");
    const done = await call(
      `/agents/careful/runs/${paused.run_id}/continue`,
      { tools: paused.tools.map((t) => ({ ...t, confirmed: true })), stream: false },
      "00-7af7651916cd43dd8448eb211c80319c-d7ad6b7169203331-01",
    );
    expect(((await done.json()) as { status: string }).status).toBe("COMPLETED");
    while (waits.length > 0) await Promise.all(waits.splice(0));
    const resumed = ofTrace("7af7651916cd43dd8448eb211c80319c");
    const run = resumed.find((s) => s.name === "Careful.run")!;
    expect(run.parentSpanId).toBe("d7ad6b7169203331");
    expect(run.attrs["agno.run.id"]).toBe(paused.run_id);
    expect(resumed.find((s) => s.attrs["gen_ai.tool.name"] === "guarded")?.parentSpanId).toBe(run.spanId);
  });

  /** An AgentOS serving `opts` with tracing to the receiver, and a POST helper carrying a traceparent. */
  function tracedOS(opts: ConstructorParameters<typeof AgentOS>[0], db: MemoryDb) {
    const tracing: TracingSettings = { exporters: ["otlp"], otlp: { endpoint: receiver.url, timeoutMs: 2000 } };
    const os = new AgentOS({ ...opts, auth: { mode: "none" }, tracing });
    const waits: Promise<unknown>[] = [];
    const ctx = { waitUntil: (p: Promise<unknown>) => void waits.push(p), passThroughOnException: () => undefined };
    const post = async (path: string, body: unknown, traceparent: string) => {
      const res = await os.fetch(
        new Request(`http://os.test${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", traceparent },
          body: JSON.stringify(body),
        }),
        { dbs: [db] },
        ctx,
      );
      const out = (await res.json()) as Record<string, unknown>;
      while (waits.length > 0) await Promise.all(waits.splice(0));
      return out;
    };
    return post;
  }

  it("traces a team run's continue under the continuing request's traceparent, the member's confirmed call in it", async () => {
    const guarded = tool({
      name: "delete_file",
      parameters: z.object({ path: z.string() }),
      requiresConfirmation: true,
      execute: ({ path }) => `deleted ${path}`,
    });
    const ops = await scriptedAgent(
      "ops",
      [{ toolCalls: [{ id: "c1", name: "delete_file", arguments: { path: "/a" } }] }, { text: "Deleted /a." }],
      { tools: [guarded] },
    );
    const { model } = await scriptedModel([
      { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "ops", task: "Clean up" } }] },
      { text: "All clean." },
    ]);
    const db = new MemoryDb();
    const team = new Team({ id: "crew", name: "Crew", model, members: [ops.agent], db });
    const post = tracedOS({ agents: [], teams: [team] }, db);
    const paused = await post(
      "/teams/crew/runs",
      { message: "Clean up /a", stream: false },
      "00-9af7651916cd43dd8448eb211c80319c-c7ad6b7169203331-01",
    );
    expect(paused.status).toBe("PAUSED");
    const done = await post(
      `/teams/crew/runs/${paused.run_id as string}/continue`,
      { requirements: [{ id: "c1", confirmed: true }], stream: false },
      "00-aaf7651916cd43dd8448eb211c80319c-d7ad6b7169203331-01",
    );
    expect(done.status).toBe("COMPLETED");
    const spans = ofTrace("aaf7651916cd43dd8448eb211c80319c");
    const run = spans.find((s) => s.name === "Crew.run")!;
    expect(run.parentSpanId).toBe("d7ad6b7169203331");
    expect(run.attrs["agno.run.id"]).toBe(paused.run_id);
    // The member's run goes on first, in the same trace, and its confirmed call runs inside it.
    const member = spans.find((s) => s.name === "ops.run")!;
    expect(member.parentSpanId).toBe("d7ad6b7169203331");
    expect(spans.find((s) => s.attrs["gen_ai.tool.name"] === "delete_file")?.parentSpanId).toBe(member.spanId);
  });

  it("traces a workflow run's continue under the continuing request's traceparent: the steps after the review", async () => {
    const db = new MemoryDb();
    const flow = new Workflow({
      id: "publish",
      name: "Publish",
      db,
      steps: [
        new Step({ name: "draft", executor: () => "a draft" }),
        new Step({
          name: "release",
          executor: () => "released",
          humanReview: new HumanReview({ requiresConfirmation: true }),
        }),
      ],
    });
    const post = tracedOS({ agents: [], workflows: [flow] }, db);
    const paused = await post(
      "/workflows/publish/runs",
      { message: "Go", stream: false },
      "00-baf7651916cd43dd8448eb211c80319c-c7ad6b7169203331-01",
    );
    expect(paused.status).toBe("PAUSED");
    const stepId = (paused.step_requirements as Array<{ step_id: string }>)[0]!.step_id;
    const done = await post(
      `/workflows/publish/runs/${paused.run_id as string}/continue`,
      { step_requirements: [{ step_id: stepId, confirmed: true }], stream: false },
      "00-caf7651916cd43dd8448eb211c80319c-d7ad6b7169203331-01",
    );
    expect(done.status).toBe("COMPLETED");
    const spans = ofTrace("caf7651916cd43dd8448eb211c80319c");
    const run = spans.find((s) => s.name === "Publish.run")!;
    expect(run.parentSpanId).toBe("d7ad6b7169203331");
    expect(run.attrs["agno.run.id"]).toBe(paused.run_id);
    expect(spans.find((s) => s.name === "release.execute")?.parentSpanId).toBe(run.spanId);
    expect(spans.some((s) => s.name === "draft.execute")).toBe(false);
  });

  it("carries the trace into a background job: request → enqueue → job → run", async () => {
    const { agent, db, post, settled, tracing } = await served([{ text: "Later." }]);
    const traceparent = "00-5af7651916cd43dd8448eb211c80319c-c7ad6b7169203331-01";
    const res = await post({ message: "Hi", background: true, stream: false }, { traceparent });
    expect(res.status).toBe(202);
    await settled();
    const [job] = (await db.jobs.listJobs({ limit: 10, page: 1 })).data;
    expect(job?.payload.traceparent).toMatch(/^00-5af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    // The queue's tracer, as the JobQueue object builds it from the same settings.
    const queueTracer = new Tracer({ exporters: [new OtlpHttpExporter(tracing.otlp!)] });
    await drainQueue(db, { components: [agent], tracer: queueTracer });
    await queueTracer.flush();
    const spans = ofTrace("5af7651916cd43dd8448eb211c80319c");
    const enqueue = spans.find((s) => s.name === "enqueue agent run")!;
    expect(enqueue.parentSpanId).toBe("c7ad6b7169203331");
    expect(enqueue.kind).toBe(4);
    const jobSpan = spans.find((s) => s.name === "process run job")!;
    expect(jobSpan.parentSpanId).toBe(enqueue.spanId);
    expect(jobSpan.kind).toBe(5);
    expect(jobSpan.attrs).toMatchObject({ "agno.job.id": job!.id, "agno.job.outcome": "COMPLETED" });
    const run = spans.find((s) => s.name === "Desk.run")!;
    expect(run.parentSpanId).toBe(jobSpan.spanId);
    expect(run.attrs["agno.run.id"]).toBe(job!.payload.run_id);
  });
});

describe("a team run served with tracing to the database and a collector", () => {
  it("is one trace, read back nested through GET /traces/{trace_id}, and the collector got the same spans", async () => {
    const member = await scriptedAgent(
      "researcher",
      [{ toolCalls: [{ name: "get_weather", arguments: { city: "Oslo" } }] }, { text: "Oslo is grey." }],
      { tools: [weather] },
    );
    const { model } = await scriptedModel([
      {
        toolCalls: [
          { id: "call_o", name: "delegate_task_to_member", arguments: { member_id: "researcher", task: "Oslo?" } },
        ],
      },
      { text: "The team says: grey." },
    ]);
    const team = new Team({ id: "desk-team", name: "DeskTeam", model, members: [member.agent] });
    const tracing: TracingSettings = {
      exporters: ["db", "otlp"],
      otlp: { endpoint: receiver.url, timeoutMs: 2000 },
    };
    const os = new AgentOS({ teams: [team], auth: { mode: "none" }, tracing });
    const db = new MemoryDb();
    const waits: Promise<unknown>[] = [];
    const ctx = { waitUntil: (p: Promise<unknown>) => void waits.push(p), passThroughOnException: () => undefined };
    const env = { dbs: [db], jobs: db.jobs, queue: { wake: async () => undefined } };
    const call = (path: string, init?: RequestInit) => os.fetch(new Request(`http://os.test${path}`, init), env, ctx);

    const res = await call("/teams/desk-team/runs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "Weather in Oslo?", stream: false }),
    });
    expect(res.status).toBe(200);
    const out = (await res.json()) as { run_id: string };
    while (waits.length > 0) await Promise.all(waits.splice(0));

    const listed = (await (await call(`/traces?run_id=${out.run_id}`)).json()) as {
      data: Array<{ trace_id: string; name: string; status: string; total_spans: number }>;
    };
    expect(listed.data).toHaveLength(1);
    const { trace_id } = listed.data[0]!;
    expect(listed.data[0]).toMatchObject({ name: "DeskTeam.run", status: "OK", total_spans: 8 });

    type Node = { name: string; type: string; spans?: Node[] };
    const detail = (await (await call(`/traces/${trace_id}`)).json()) as { tree: Node[] };
    const [root] = detail.tree;
    expect(detail.tree).toHaveLength(1);
    expect(root!.name).toBe("DeskTeam.run");
    // team run → delegate call → member run → its tool call (and each run's model calls beside)
    const delegate = root!.spans!.find((n) => n.name === "execute_tool delegate_task_to_member")!;
    const memberRun = delegate.spans!.find((n) => n.name === "researcher.run")!;
    expect(memberRun.spans!.map((n) => n.name)).toContain("execute_tool get_weather");

    const stored = await db.traces.getSpans(trace_id);
    const received = receiver.spans.filter((s) => s.traceId === trace_id);
    expect(received.map((s) => s.spanId).sort()).toEqual(stored.map((s) => s.span_id).sort());
  });
});
