/**
 * One framework's measurement in a process of its own (started by agents.ts with
 * `node --expose-gc --import tsx`), so no framework's modules, JIT state or garbage weighs on
 * another's figure. The result goes back over the IPC channel; stdout and stderr both go to the
 * bench's stderr, since frameworks may log.
 *
 *   agent-child.ts construct <framework> <config json>   one measurement, then exit
 *   agent-child.ts run <framework> <config json>         warm-ups, then batches of runs on request
 *
 * The run child stays up so the parent can interleave batches of every framework: load on this
 * shared 2-core machine then falls on all of them alike instead of on whichever ran at the time.
 */
import { scriptModel, type Turn } from "../../test/support/model-script.js";
import { ANSWER, INPUT, loadFramework, TOOL_NAME, type DbConfig, type Framework } from "./frameworks.js";
import { errorMessage } from "../../src/errors.js";

export interface ConstructConfig {
  n: number;
  warmup: number;
  /** where the model objects point; construction sends nothing */
  baseURL: string;
}

export interface RunConfig {
  n: number;
  warmup: number;
  modelServerUrl: string;
  db?: DbConfig;
}

interface Identity {
  framework: string;
  package: string;
  version: string;
  storage?: string;
}

export interface ConstructResult extends Identity {
  /** microseconds per construction, one sample each */
  samples_us: number[];
  heap_bytes_per_agent: number;
  heap_agents: number;
}

export interface RunSummary extends Identity {
  /** how the framework's model client asked for its answers: `stream: true` (SSE) or one JSON body */
  wire: "sse" | "json";
  runs: number;
  model_requests: number;
  tool_calls: number;
  /** with a db: the conversations (sessions, threads) stored, one per run */
  stored_conversations?: number;
}

/** What a child sends back: one construct result; or `ready`, one `batch` per request, then `done`. */
export type ChildMessage =
  | { ok: true; kind: "construct"; result: ConstructResult }
  | { ok: true; kind: "ready" }
  | { ok: true; kind: "batch"; samples_ms: number[] }
  | { ok: true; kind: "done"; summary: RunSummary }
  | { ok: false; stage: "load" | "measure"; error: string };

/** What the parent asks a run child: `runs` more timed runs, or to check everything and finish. */
export type ParentMessage = { kind: "batch"; runs: number } | { kind: "finish" };

const identity = (fw: Framework): Identity => ({
  framework: fw.name,
  package: fw.package,
  version: fw.version,
  ...(fw.storage && { storage: fw.storage }),
});

/**
 * agno's method (PerformanceEval): build the agent `n` times after `warmup` builds, each timed on
 * its own; the model and the tool are built once, outside the loop. A full collection first, so
 * the garbage of loading the framework (for agno-edge, tsx compiling its TypeScript) is not
 * collected on the clock; collections the constructions cause still are. Retained heap: `n` more
 * agents kept alive in an array, the heap compared after full collections before and after.
 */
function construct(fw: Framework, cfg: ConstructConfig): ConstructResult {
  const gc = globalThis.gc;
  if (!gc) throw new Error("run with --expose-gc");
  const model = fw.model(cfg.baseURL);
  const weather = fw.tool(() => undefined);
  gc();
  gc();
  let sink: unknown;
  for (let i = 0; i < cfg.warmup; i++) sink = fw.agent(model, weather);
  const samples: number[] = [];
  for (let i = 0; i < cfg.n; i++) {
    const started = performance.now();
    sink = fw.agent(model, weather);
    samples.push((performance.now() - started) * 1000);
  }
  if (!sink) throw new Error("no agent built");

  const kept: unknown[] = new Array<unknown>(cfg.n).fill(null);
  sink = null;
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < cfg.n; i++) kept[i] = fw.agent(model, weather);
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  if (kept.some((a) => !a)) throw new Error("an agent went missing");
  return {
    ...identity(fw),
    samples_us: samples,
    heap_bytes_per_agent: Math.round((after - before) / cfg.n),
    heap_agents: kept.length,
  };
}

/** Each run: the model asks for the tool, the tool runs, the model answers. */
const RUN_TURNS: Turn[] = [{ toolCalls: [{ name: TOOL_NAME, arguments: { city: "Paris" } }] }, { text: ANSWER }];

/**
 * One agent and one script of 2 turns per run, registered before the first run so the timed runs
 * only talk to the model. Every run is timed from the call to the final text, which must be the
 * scripted answer.
 */
async function runner(fw: Framework, cfg: RunConfig) {
  const total = cfg.warmup + cfg.n;
  const script = await scriptModel(cfg.modelServerUrl, Array.from({ length: total }, () => RUN_TURNS).flat());
  let toolCalls = 0;
  let runs = 0;
  const agent = fw.agent(
    fw.model(script.baseURL),
    fw.tool(() => toolCalls++),
  );
  async function timed(count: number): Promise<number[]> {
    const samples: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      const text = await fw.run(agent, INPUT);
      samples.push(performance.now() - started);
      runs++;
      if (text !== ANSWER)
        throw new Error(`run ${runs} answered ${JSON.stringify(text)}, not ${JSON.stringify(ANSWER)}`);
    }
    return samples;
  }
  /**
   * The script's recorded requests must show exactly two model requests per run, the second
   * carrying the tool's result, and the tool must have run once per run: otherwise the figure
   * would measure something else, and the bench fails. With a db, each run must have stored a
   * conversation of its own.
   */
  async function check(): Promise<RunSummary> {
    if (runs !== total) throw new Error(`${runs} runs made; ${total} planned`);
    const requests = await script.requests();
    if (requests.length !== 2 * runs)
      throw new Error(`${requests.length} model requests for ${runs} runs; expected ${2 * runs}`);
    if (toolCalls !== runs) throw new Error(`the tool ran ${toolCalls} times in ${runs} runs`);
    const stored = await fw.storedConversations?.();
    if (stored !== undefined && stored !== runs)
      throw new Error(`${stored} conversations stored for ${runs} runs; expected one each`);
    requests.forEach((r, i) => {
      const messages = (r.body.messages ?? []) as { role?: string; content?: unknown }[];
      const toolResult = messages.find((m) => m.role === "tool");
      if (r.disconnected) throw new Error(`model request ${i + 1} was cut off`);
      if (i % 2 === 0 && toolResult) throw new Error(`model request ${i + 1} opens a run but carries a tool result`);
      if (i % 2 === 1 && !JSON.stringify(toolResult?.content ?? "").includes("21"))
        throw new Error(
          `model request ${i + 1} lacks the tool's result; its messages: ${JSON.stringify(messages).slice(0, 2000)}`,
        );
    });
    const streamed = requests.map((r) => r.body.stream === true);
    if (streamed.some((x) => x !== streamed[0]))
      throw new Error("the framework mixed streamed and plain model requests");
    return {
      ...identity(fw),
      wire: streamed[0] ? "sse" : "json",
      runs,
      model_requests: requests.length,
      tool_calls: toolCalls,
      ...(stored !== undefined && { stored_conversations: stored }),
    };
  }
  return { timed, check };
}

/** The parent's requests, queued from the start so none is missed between two awaits. */
const inbox: ParentMessage[] = [];
let wake: (() => void) | undefined;
process.on("message", (m) => {
  inbox.push(m as ParentMessage);
  wake?.();
});
async function nextRequest(): Promise<ParentMessage> {
  while (!inbox.length) await new Promise<void>((resolve) => (wake = resolve));
  return inbox.shift()!;
}

const send = (m: ChildMessage) => new Promise<void>((resolve) => process.send!(m, () => resolve()));
const describe = (e: unknown) => (e instanceof Error ? (e.stack ?? e.message) : String(e));

async function main(): Promise<void> {
  const [mode, name, json] = process.argv.slice(2);
  const config = JSON.parse(json ?? "{}") as ConstructConfig & RunConfig;
  let fw: Framework;
  try {
    fw = await loadFramework(name ?? "", { db: mode === "run" ? config.db : undefined });
  } catch (e) {
    return send({ ok: false, stage: "load", error: errorMessage(e) });
  }
  try {
    if (mode === "construct") return await send({ ok: true, kind: "construct", result: construct(fw, config) });
    const { timed, check } = await runner(fw, config);
    await timed(config.warmup);
    await send({ ok: true, kind: "ready" });
    for (;;) {
      const request = await nextRequest();
      if (request.kind === "finish") return await send({ ok: true, kind: "done", summary: await check() });
      await send({ ok: true, kind: "batch", samples_ms: await timed(request.runs) });
    }
  } catch (e) {
    await send({ ok: false, stage: "measure", error: describe(e) });
  } finally {
    await fw.close();
  }
}

main()
  .catch((e: unknown) => {
    process.stderr.write(`[bench child] ${describe(e)}\n`);
    process.exitCode = 1;
  })
  // Some frameworks leave timers or sockets behind (telemetry, keep-alive pools): the answer is sent, so leave.
  .finally(() => process.exit());
