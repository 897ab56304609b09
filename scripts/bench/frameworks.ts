/**
 * One adapter per framework compared by the agent figures: how to build its OpenAI-compatible
 * model object, the one typed tool (zod schema), the agent, and how to run it once to its final
 * text. Every agent gets the same name, instructions, model id and tool; the peers come from
 * scripts/bench/peers (peers.ts) and are typed here by the few members the bench touches.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { Pool } from "@neondatabase/serverless";
import ws from "ws";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import { DEFAULT_TABLE_NAMES } from "../../src/db/postgres/names.js";
import { PostgresDb } from "../../src/db/postgres/postgres-db.js";
import { nodePostgresDb } from "../../src/db/postgres/node-postgres-db.js";
import pg from "pg";
import { createModel } from "../../src/models/providers.js";
import { tool } from "../../src/tools/tool.js";
import { chatCompletion } from "./chat-completion.js";
import { importPeer, peerVersion } from "./peers.js";

export const AGENT_NAME = "weather";
export const INSTRUCTIONS = "You report the weather. Answer in one short sentence.";
export const MODEL_ID = "gpt-test";
export const API_KEY = "bench-key";
export const TOOL_NAME = "get_weather";
export const TOOL_DESCRIPTION = "Current weather for a city";
export const INPUT = "What is the weather in Paris?";
export const ANSWER = "It is 21 C in Paris.";

/** What the tool returns, in every framework. */
const weatherIn = (city: string) => ({ city, celsius: 21 });

export const PEERS = ["mastra", "voltagent", "langgraph"] as const;
export type PeerName = (typeof PEERS)[number];
export type FrameworkName = "agno-edge" | PeerName | "raw-fetch";

export interface Framework<M = unknown, T = unknown, A = unknown> {
  name: FrameworkName;
  /** the package whose agent is measured, and its version */
  package: string;
  version: string;
  /** what the agent stores its runs with, when it has a db: the packages and their versions */
  storage?: string;
  /** the model object for an OpenAI-compatible server at `baseURL` (Chat Completions) */
  model(baseURL: string): M;
  /** the one tool; `onCall` counts its executions */
  tool(onCall: () => void): T;
  agent(model: M, tool: T): A;
  /** one run of INPUT to its final text */
  run(agent: A, input: string): Promise<string>;
  /** with a db: how many conversations (agno-edge sessions, Mastra threads) it holds, one per run */
  storedConversations?(): Promise<number>;
  close(): Promise<void>;
}

/**
 * A Postgres an agent stores its runs in, in a schema of its own that is dropped on close:
 * agno-edge reaches `url` through the WebSocket proxy `wsProxy` (as on Workers), Mastra's
 * node-postgres driver over TCP.
 */
export interface DbConfig {
  name: string;
  url: string;
  wsProxy: string;
  schema: string;
}

// -- agno-edge -----------------------------------------------------------------------------

async function agnoEdge(
  db?: DbConfig,
  driver: "neon" | "node-postgres" = "neon",
): Promise<Framework<ReturnType<typeof createModel>, ReturnType<typeof tool>, Agent>> {
  // Both pools answer query and end alike (Neon's driver is node-postgres's API).
  let pool: Pick<Pool, "query" | "end"> | undefined;
  let store: PostgresDb | undefined;
  if (db && driver === "node-postgres") {
    // Straight to the server over TCP, as Mastra's store connects.
    const tcp = new pg.Pool({ connectionString: db.url, max: 4 });
    pool = tcp as unknown as Pool;
    store = nodePostgresDb({ pool: tcp, schema: db.schema, id: "bench" });
  } else if (db) {
    useLocalWsProxy(db.wsProxy, ws);
    const neon = new Pool({ connectionString: db.url, max: 4 });
    pool = neon;
    store = new PostgresDb({ pool: neon, schema: db.schema, id: "bench" });
  }
  if (store) {
    const state = await store.init();
    if (state !== "current") throw new Error(`the bench schema reads as ${state}, not current`);
  }
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    name: string;
    version: string;
  };
  return {
    name: "agno-edge",
    package: pkg.name,
    version: pkg.version,
    ...(store && {
      storage:
        driver === "node-postgres"
          ? `PostgresDb over node-postgres (${pkg.name}/pg ${pkg.version})`
          : `PostgresDb (${pkg.name} ${pkg.version})`,
    }),
    model: (baseURL) => createModel(`openai:${MODEL_ID}`, { credentials: { openai: { apiKey: API_KEY, baseURL } } }),
    tool: (onCall) =>
      tool({
        name: TOOL_NAME,
        description: TOOL_DESCRIPTION,
        parameters: z.object({ city: z.string() }),
        execute: async ({ city }) => {
          onCall();
          return weatherIn(city);
        },
      }),
    agent: (model, weather) =>
      new Agent({ name: AGENT_NAME, instructions: INSTRUCTIONS, model, tools: [weather], ...(store && { db: store }) }),
    run: async (agent, input) => {
      const out = await agent.run(input);
      if (out.status !== "COMPLETED") throw new Error(`run ended ${out.status}: ${JSON.stringify(out.content)}`);
      return String(out.content);
    },
    ...(pool && {
      storedConversations: async () => {
        const { rows } = await pool!.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM "${db!.schema}"."${DEFAULT_TABLE_NAMES.sessions}"`,
        );
        return rows[0]!.n;
      },
    }),
    close: async () => {
      if (!pool) return;
      await pool.query(`DROP SCHEMA IF EXISTS "${db!.schema}" CASCADE`);
      await pool.end();
    },
  };
}

// -- the peers -----------------------------------------------------------------------------

interface PeerZod {
  z: { object(shape: Record<string, unknown>): unknown; string(): unknown };
}
interface AiSdkOpenAI {
  createOpenAI(opts: { apiKey: string; baseURL: string }): { chat(modelId: string): unknown };
}
type Execute = (args: { city: string }) => Promise<unknown>;

/**
 * Mastra: `new Agent({id, name, instructions, model, tools, memory?})` and `agent.generate(input, {memory?})`,
 * with an AI SDK model.
 */
interface MastraAgentModule {
  Agent: new (config: {
    id: string;
    name: string;
    instructions: string;
    model: unknown;
    tools: Record<string, unknown>;
    memory?: unknown;
  }) => {
    generate(input: string, opts?: { memory?: { thread: string; resource: string } }): Promise<{ text: string }>;
  };
}
/** `@mastra/pg`: the Postgres store, which creates its schema and tables on `init()`. */
interface MastraPgModule {
  PostgresStore: new (config: { id: string; connectionString: string; schemaName: string; max: number }) => {
    init(): Promise<void>;
    pool: { query(sql: string): Promise<{ rows: Record<string, unknown>[] }> };
    close(): Promise<void>;
  };
}
/** `@mastra/memory`: threads and messages kept in a store; `settled()` waits for its background work. */
interface MastraMemoryModule {
  Memory: new (config: { storage: unknown }) => { settled(): Promise<void> };
}
interface MastraToolsModule {
  createTool(opts: { id: string; description: string; inputSchema: unknown; execute: Execute }): unknown;
}

/** The resource (Mastra's owner of threads) every stored run belongs to. */
const MASTRA_RESOURCE = "bench";

/**
 * With `db`, the agent gets a `Memory` on a `PostgresStore` in the schema `db.schema` (default
 * memory options, as a user who adds Postgres storage gets them) and each run is a new thread, as
 * each agno-edge run is a new session: the run reads the thread's (empty) history and stores
 * the thread and its messages.
 */
async function mastra(db?: DbConfig): Promise<Framework> {
  const [{ Agent: MastraAgent }, { createTool }, { createOpenAI }, { z: pz }] = await Promise.all([
    importPeer<MastraAgentModule>("@mastra/core/agent"),
    importPeer<MastraToolsModule>("@mastra/core/tools"),
    importPeer<AiSdkOpenAI>("@ai-sdk/openai"),
    importPeer<PeerZod>("zod"),
  ]);
  type A = InstanceType<typeof MastraAgent>;
  let store: InstanceType<MastraPgModule["PostgresStore"]> | undefined;
  let memory: InstanceType<MastraMemoryModule["Memory"]> | undefined;
  if (db) {
    const [{ PostgresStore }, { Memory }] = await Promise.all([
      importPeer<MastraPgModule>("@mastra/pg"),
      importPeer<MastraMemoryModule>("@mastra/memory"),
    ]);
    // The pool as large as agno-edge's; runs go one at a time, so neither waits for a connection.
    store = new PostgresStore({ id: "bench", connectionString: db.url, schemaName: db.schema, max: 4 });
    // Tables first, so no timed run pays for creating them.
    await store.init();
    memory = new Memory({ storage: store });
  }
  return {
    name: "mastra",
    package: "@mastra/core",
    version: peerVersion("@mastra/core"),
    ...(db && {
      storage: `PostgresStore (@mastra/pg ${peerVersion("@mastra/pg")}) in Memory (@mastra/memory ${peerVersion("@mastra/memory")})`,
    }),
    model: (baseURL) => createOpenAI({ apiKey: API_KEY, baseURL }).chat(MODEL_ID),
    tool: (onCall) =>
      createTool({
        id: TOOL_NAME,
        description: TOOL_DESCRIPTION,
        inputSchema: pz.object({ city: pz.string() }),
        execute: async ({ city }) => {
          onCall();
          return weatherIn(city);
        },
      }),
    agent: (model, weather) =>
      new MastraAgent({
        id: AGENT_NAME,
        name: AGENT_NAME,
        instructions: INSTRUCTIONS,
        model,
        tools: { [TOOL_NAME]: weather },
        ...(memory && { memory }),
      }),
    run: async (agent, input) =>
      (
        await (agent as A).generate(
          input,
          memory ? { memory: { thread: randomUUID(), resource: MASTRA_RESOURCE } } : undefined,
        )
      ).text,
    ...(store && {
      storedConversations: async () => {
        const { rows } = await store!.pool.query(`SELECT count(*)::int AS n FROM "${db!.schema}".mastra_threads`);
        return Number(rows[0]!.n);
      },
    }),
    close: async () => {
      if (!store) return;
      await memory!.settled();
      await store.pool.query(`DROP SCHEMA IF EXISTS "${db!.schema}" CASCADE`);
      await store.close();
    },
  };
}

/** VoltAgent: `new Agent({name, instructions, model, tools, memory})` and `agent.generateText(input)`, with an AI SDK model. */
interface VoltAgentModule {
  Agent: new (config: { name: string; instructions: string; model: unknown; tools: unknown[]; memory: false }) => {
    generateText(input: string): Promise<{ text: string }>;
  };
  createTool(opts: { name: string; description: string; parameters: unknown; execute: Execute }): unknown;
}

async function voltagent(): Promise<Framework> {
  const [{ Agent: VoltAgent, createTool }, { createOpenAI }, { z: pz }] = await Promise.all([
    importPeer<VoltAgentModule>("@voltagent/core"),
    importPeer<AiSdkOpenAI>("@ai-sdk/openai"),
    importPeer<PeerZod>("zod"),
  ]);
  type A = InstanceType<typeof VoltAgent>;
  return {
    name: "voltagent",
    package: "@voltagent/core",
    version: peerVersion("@voltagent/core"),
    model: (baseURL) => createOpenAI({ apiKey: API_KEY, baseURL }).chat(MODEL_ID),
    tool: (onCall) =>
      createTool({
        name: TOOL_NAME,
        description: TOOL_DESCRIPTION,
        parameters: pz.object({ city: pz.string() }),
        execute: async ({ city }) => {
          onCall();
          return weatherIn(city);
        },
      }),
    // memory: false: without it every VoltAgent agent gets an in-memory conversation store; no one else persists here.
    agent: (model, weather) =>
      new VoltAgent({ name: AGENT_NAME, instructions: INSTRUCTIONS, model, tools: [weather], memory: false }),
    run: async (agent, input) => (await (agent as A).generateText(input)).text,
    close: async () => undefined,
  };
}

/** LangGraph.js: the prebuilt `createReactAgent({llm, tools, prompt})` over `ChatOpenAI`, `invoke({messages})`. */
interface LangGraphPrebuilt {
  createReactAgent(params: { llm: unknown; tools: unknown[]; prompt: string; name: string }): {
    invoke(input: { messages: { role: string; content: string }[] }): Promise<{ messages: { content: unknown }[] }>;
  };
}
interface LangChainOpenAI {
  ChatOpenAI: new (fields: { model: string; apiKey: string; configuration: { baseURL: string } }) => unknown;
}
interface LangChainTools {
  tool(fn: Execute, fields: { name: string; description: string; schema: unknown }): unknown;
}

async function langgraph(): Promise<Framework> {
  const [{ createReactAgent }, { ChatOpenAI }, { tool: lcTool }, { z: pz }] = await Promise.all([
    importPeer<LangGraphPrebuilt>("@langchain/langgraph/prebuilt"),
    importPeer<LangChainOpenAI>("@langchain/openai"),
    importPeer<LangChainTools>("@langchain/core/tools"),
    importPeer<PeerZod>("zod"),
  ]);
  type A = ReturnType<typeof createReactAgent>;
  return {
    name: "langgraph",
    package: "@langchain/langgraph",
    version: peerVersion("@langchain/langgraph"),
    model: (baseURL) => new ChatOpenAI({ model: MODEL_ID, apiKey: API_KEY, configuration: { baseURL } }),
    tool: (onCall) =>
      lcTool(
        async ({ city }) => {
          onCall();
          // A LangChain tool answers the model with a string (a ToolMessage's content).
          return JSON.stringify(weatherIn(city));
        },
        { name: TOOL_NAME, description: TOOL_DESCRIPTION, schema: pz.object({ city: pz.string() }) },
      ),
    agent: (llm, weather) => createReactAgent({ llm, tools: [weather], prompt: INSTRUCTIONS, name: AGENT_NAME }),
    run: async (agent, input) => {
      const { messages } = await (agent as A).invoke({ messages: [{ role: "user", content: input }] });
      return String(messages.at(-1)?.content);
    },
    close: async () => undefined,
  };
}

// -- the floor: no framework ---------------------------------------------------------------

/**
 * Two plain `fetch` calls per run, as a hand-written client would make them: what the model
 * server and HTTP cost on this machine with no framework at all. `sse` streams and reads the
 * events; otherwise one JSON answer per call.
 */
function rawFetch(
  sse: boolean,
): Framework<string, (city: string) => unknown, { baseURL: string; weather: (city: string) => unknown }> {
  const parameters = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
  const tools = [{ type: "function", function: { name: TOOL_NAME, description: TOOL_DESCRIPTION, parameters } }];
  const complete = (baseURL: string, messages: unknown[]) =>
    chatCompletion(baseURL, { model: MODEL_ID, apiKey: API_KEY, messages, tools }, sse);
  return {
    name: "raw-fetch",
    package: "fetch",
    version: process.version,
    model: (baseURL) => baseURL,
    tool: (onCall) => (city) => {
      onCall();
      return weatherIn(city);
    },
    agent: (baseURL, weather) => ({ baseURL, weather }),
    run: async ({ baseURL, weather }, input) => {
      const messages: unknown[] = [
        { role: "system", content: INSTRUCTIONS },
        { role: "user", content: input },
      ];
      const first = await complete(baseURL, messages);
      const call = first.tool_calls?.[0];
      if (!call) throw new Error("the first answer has no tool call");
      const { city } = JSON.parse(call.function.arguments) as { city: string };
      messages.push({ role: "assistant", content: null, tool_calls: [{ ...call, type: "function" }] });
      messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(weather(city)) });
      return (await complete(baseURL, messages)).content ?? "";
    },
    close: async () => undefined,
  };
}

/** Loads one framework (a peer from scripts/bench/peers). */
export async function loadFramework(name: string, opts: { db?: DbConfig } = {}): Promise<Framework> {
  switch (name) {
    case "agno-edge":
      return (await agnoEdge(opts.db)) as Framework;
    case "agno-edge/pg":
      return (await agnoEdge(opts.db, "node-postgres")) as Framework;
    case "mastra":
      return mastra(opts.db);
    case "voltagent":
      return voltagent();
    case "langgraph":
      return langgraph();
    case "raw-fetch-json":
      return rawFetch(false) as Framework;
    case "raw-fetch-sse":
      return rawFetch(true) as Framework;
    default:
      throw new Error(`no framework ${name}`);
  }
}
