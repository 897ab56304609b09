/**
 * One adapter per framework compared by the team figures: a leader and two members (a
 * researcher and a writer), each with a model of its own on the scripted model server, run
 * once per call to the leader's final text. Every framework gets the same conversation:
 *
 *   leader -> asks its delegation tool to send the task to the researcher (1 model call)
 *   researcher -> answers (1 model call)
 *   leader -> answers with the researcher's reply in its context (1 model call)
 *
 * so 3 model calls per run, the writer never called. agno-edge: `new Team({mode: "coordinate"})`
 * (agno's `delegate_task_to_member`); Mastra: a supervisor agent with `agents: {researcher,
 * writer}` run by `generate()` (each sub-agent is a tool `agent-<name>`; `network()` is left out,
 * since its routing agent answers in structured output and checks completion with further model
 * calls, another conversation); LangGraph.js: `createSupervisor` from
 * @langchain/langgraph-supervisor (handoff tools `transfer_to_<name>`, the handoff back written
 * without a model call). The floor: the same 3 requests made by hand with fetch.
 */
import { readFileSync } from "node:fs";
import { Pool } from "@neondatabase/serverless";
import ws from "ws";
import { Agent } from "../../src/agent/agent.js";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import { DEFAULT_TABLE_NAMES } from "../../src/db/postgres/names.js";
import { PostgresDb } from "../../src/db/postgres/postgres-db.js";
import { createModel } from "../../src/models/providers.js";
import { Team } from "../../src/team/index.js";
import { scriptModel, type ModelScript, type Turn } from "../../test/support/model-script.js";
import { chatCompletion } from "./chat-completion.js";
import type { DbConfig } from "./frameworks.js";
import { importPeer, peerVersion } from "./peers.js";
import { countStatements } from "./statement-counter.js";

const API_KEY = "bench-key";
const MODEL_ID = "gpt-test";
const LEADER = "desk";
const LEADER_INSTRUCTIONS = "You lead a research desk. Delegate research, then answer in one sentence.";
const MEMBER_INSTRUCTIONS = "Answer the task in one short sentence.";
const MEMBERS = [
  { id: "researcher", description: "Finds facts" },
  { id: "writer", description: "Writes prose" },
] as const;
export const TEAM_INPUT = "How many aqueducts did Rome have?";
const TASK = "Count the aqueducts of ancient Rome";
const MEMBER_ANSWER = "Rome had 11 aqueducts.";
export const TEAM_ANSWER = "Ancient Rome had 11 aqueducts.";
/** model calls per run: leader, researcher, leader */
export const TEAM_MODEL_CALLS = 3;

export interface TeamRunner {
  framework: string;
  package: string;
  version: string;
  storage?: string;
  /** one run of TEAM_INPUT to the leader's final text */
  run(): Promise<string>;
  /** what the scripts recorded and the db holds, after `runs` runs; throws when the runs did something else */
  check(runs: number): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** The leader's scripted turns for one run: the delegation call in this framework's tool, then the answer. */
const leaderTurns = (toolName: string, args: Record<string, unknown>): Turn[] => [
  { toolCalls: [{ name: toolName, arguments: args }] },
  { text: TEAM_ANSWER },
];

interface Scripts {
  leader: ModelScript;
  researcher: ModelScript;
  writer: ModelScript;
}

async function scripts(
  serverUrl: string,
  runs: number,
  toolName: string,
  args: Record<string, unknown>,
): Promise<Scripts> {
  const repeat = (turns: Turn[]) => Array.from({ length: runs }, () => turns).flat();
  return {
    leader: await scriptModel(serverUrl, repeat(leaderTurns(toolName, args))),
    researcher: await scriptModel(serverUrl, repeat([{ text: MEMBER_ANSWER }])),
    writer: await scriptModel(serverUrl, []),
  };
}

/**
 * Every run made exactly its 3 model calls, the second leader call carrying the researcher's
 * answer, the writer never called; and one wire (streamed or not) throughout.
 */
async function checkScripts(s: Scripts, runs: number): Promise<{ wire: "sse" | "json"; model_requests: number }> {
  const [leader, researcher, writer] = await Promise.all([
    s.leader.requests(),
    s.researcher.requests(),
    s.writer.requests(),
  ]);
  if (leader.length !== 2 * runs || researcher.length !== runs || writer.length !== 0)
    throw new Error(
      `${leader.length} leader, ${researcher.length} researcher and ${writer.length} writer model requests for ${runs} runs; expected ${2 * runs}, ${runs}, 0`,
    );
  leader.forEach((r, i) => {
    if (r.disconnected) throw new Error(`leader request ${i + 1} was cut off`);
    const carries = JSON.stringify(r.body.messages ?? []).includes(MEMBER_ANSWER);
    if (i % 2 === 1 && !carries)
      throw new Error(
        `leader request ${i + 1} lacks the researcher's answer: ${JSON.stringify(r.body.messages).slice(0, 2000)}`,
      );
    if (i % 2 === 0 && carries) throw new Error(`leader request ${i + 1} opens a run but carries an earlier answer`);
  });
  const streamed = [...leader, ...researcher].map((r) => r.body.stream === true);
  if (streamed.some((x) => x !== streamed[0])) throw new Error("the framework mixed streamed and plain model requests");
  return { wire: streamed[0] ? "sse" : "json", model_requests: leader.length + researcher.length };
}

// -- agno-edge -----------------------------------------------------------------------------

async function agnoEdge(serverUrl: string, runs: number, db?: DbConfig): Promise<TeamRunner> {
  let pool: Pool | undefined;
  let store: PostgresDb | undefined;
  let statements: { readonly count: number } | undefined;
  if (db) {
    useLocalWsProxy(db.wsProxy, ws);
    pool = new Pool({ connectionString: db.url, max: 4 });
    store = new PostgresDb({ pool, schema: db.schema, id: "bench" });
    const state = await store.init();
    if (state !== "current") throw new Error(`the bench schema reads as ${state}, not current`);
    statements = countStatements(pool);
  }
  const s = await scripts(serverUrl, runs, "delegate_task_to_member", { member_id: "researcher", task: TASK });
  const model = (script: ModelScript) =>
    createModel(`openai:${MODEL_ID}`, { credentials: { openai: { apiKey: API_KEY, baseURL: script.baseURL } } });
  const [researcher, writer] = MEMBERS.map(
    (m) =>
      new Agent({
        id: m.id,
        name: m.id,
        description: m.description,
        instructions: MEMBER_INSTRUCTIONS,
        model: model(s[m.id]),
      }),
  );
  const team = new Team({
    name: LEADER,
    mode: "coordinate",
    instructions: LEADER_INSTRUCTIONS,
    model: model(s.leader),
    members: [researcher!, writer!],
    ...(store && { db: store }),
  });
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    name: string;
    version: string;
  };
  const count = async (table: string) =>
    (await pool!.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${db!.schema}"."${table}"`)).rows[0]!.n;
  return {
    framework: "agno-edge",
    package: pkg.name,
    version: pkg.version,
    ...(store && { storage: `PostgresDb (${pkg.name} ${pkg.version})` }),
    run: async () => {
      const out = await team.run(TEAM_INPUT);
      if (out.status !== "COMPLETED") throw new Error(`team run ended ${out.status}: ${JSON.stringify(out.content)}`);
      if (out.member_responses?.length !== 1) throw new Error(`${out.member_responses?.length} member runs, not 1`);
      return String(out.content);
    },
    check: async (n) => {
      const wire = await checkScripts(s, n);
      if (!pool) return wire;
      const perRun = statements!.count / n;
      // One session per run, holding the team run and the member's run as rows of their own.
      const [sessions, rows] = [await count(DEFAULT_TABLE_NAMES.sessions), await count(DEFAULT_TABLE_NAMES.runs)];
      if (sessions !== n || rows !== 2 * n)
        throw new Error(`${sessions} sessions and ${rows} run rows for ${n} runs; expected ${n} and ${2 * n}`);
      return {
        ...wire,
        statements_per_run: Number(perRun.toFixed(2)),
        stored_sessions: sessions,
        stored_run_rows: rows,
      };
    },
    close: async () => {
      if (!pool) return;
      await pool.query(`DROP SCHEMA IF EXISTS "${db!.schema}" CASCADE`);
      await pool.end();
    },
  };
}

// -- Mastra --------------------------------------------------------------------------------

interface AiSdkOpenAI {
  createOpenAI(opts: { apiKey: string; baseURL: string }): { chat(modelId: string): unknown };
}
/** `new Agent({..., agents})`: each sub-agent becomes a tool `agent-<key>` taking `{prompt}`. */
interface MastraAgentModule {
  Agent: new (config: {
    id: string;
    name: string;
    description?: string;
    instructions: string;
    model: unknown;
    agents?: Record<string, unknown>;
  }) => { generate(input: string): Promise<{ text: string }> };
}

async function mastra(serverUrl: string, runs: number): Promise<TeamRunner> {
  const [{ Agent: MastraAgent }, { createOpenAI }] = await Promise.all([
    importPeer<MastraAgentModule>("@mastra/core/agent"),
    importPeer<AiSdkOpenAI>("@ai-sdk/openai"),
  ]);
  const s = await scripts(serverUrl, runs, "agent-researcher", { prompt: TASK });
  const model = (script: ModelScript) => createOpenAI({ apiKey: API_KEY, baseURL: script.baseURL }).chat(MODEL_ID);
  const agents = Object.fromEntries(
    MEMBERS.map((m) => [
      m.id,
      new MastraAgent({
        id: m.id,
        name: m.id,
        description: m.description,
        instructions: MEMBER_INSTRUCTIONS,
        model: model(s[m.id]),
      }),
    ]),
  );
  const leader = new MastraAgent({
    id: LEADER,
    name: LEADER,
    instructions: LEADER_INSTRUCTIONS,
    model: model(s.leader),
    agents,
  });
  return {
    framework: "mastra",
    package: "@mastra/core",
    version: peerVersion("@mastra/core"),
    run: async () => (await leader.generate(TEAM_INPUT)).text,
    check: (n) => checkScripts(s, n),
    close: async () => undefined,
  };
}

// -- LangGraph.js --------------------------------------------------------------------------

interface LangChainOpenAI {
  ChatOpenAI: new (fields: { model: string; apiKey: string; configuration: { baseURL: string } }) => unknown;
}
interface LangGraphPrebuilt {
  createReactAgent(params: {
    llm: unknown;
    tools: unknown[];
    prompt: string;
    name: string;
    description?: string;
  }): unknown;
}
type Invoke = (input: {
  messages: { role: string; content: string }[];
}) => Promise<{ messages: { content: unknown }[] }>;
interface LangGraphSupervisor {
  createSupervisor(params: { agents: unknown[]; llm: unknown; prompt: string; supervisorName: string }): {
    compile(): { invoke: Invoke };
  };
}

async function langgraph(serverUrl: string, runs: number): Promise<TeamRunner> {
  const [{ createReactAgent }, { createSupervisor }, { ChatOpenAI }] = await Promise.all([
    importPeer<LangGraphPrebuilt>("@langchain/langgraph/prebuilt"),
    importPeer<LangGraphSupervisor>("@langchain/langgraph-supervisor"),
    importPeer<LangChainOpenAI>("@langchain/openai"),
  ]);
  const s = await scripts(serverUrl, runs, "transfer_to_researcher", {});
  const llm = (script: ModelScript) =>
    new ChatOpenAI({ model: MODEL_ID, apiKey: API_KEY, configuration: { baseURL: script.baseURL } });
  const agents = MEMBERS.map((m) =>
    createReactAgent({
      llm: llm(s[m.id]),
      tools: [],
      prompt: MEMBER_INSTRUCTIONS,
      name: m.id,
      description: m.description,
    }),
  );
  const graph = createSupervisor({
    agents,
    llm: llm(s.leader),
    prompt: LEADER_INSTRUCTIONS,
    supervisorName: LEADER,
  }).compile();
  return {
    framework: "langgraph",
    package: "@langchain/langgraph-supervisor",
    version: `${peerVersion("@langchain/langgraph-supervisor")} (@langchain/langgraph ${peerVersion("@langchain/langgraph")})`,
    run: async () => {
      const { messages } = await graph.invoke({ messages: [{ role: "user", content: TEAM_INPUT }] });
      return String(messages.at(-1)?.content);
    },
    check: (n) => checkScripts(s, n),
    close: async () => undefined,
  };
}

// -- the floor -----------------------------------------------------------------------------

/** The same 3 requests by hand: the leader's (with a delegation tool), the researcher's, the leader's with the answer. */
async function rawFetch(serverUrl: string, runs: number, sse: boolean): Promise<TeamRunner> {
  const s = await scripts(serverUrl, runs, "delegate", { member_id: "researcher", task: TASK });
  const parameters = {
    type: "object",
    properties: { member_id: { type: "string" }, task: { type: "string" } },
    required: ["member_id", "task"],
  };
  const tools = [{ type: "function", function: { name: "delegate", description: "Delegate a task", parameters } }];
  const complete = (script: ModelScript, messages: unknown[], withTools: boolean) =>
    chatCompletion(script.baseURL, { model: MODEL_ID, apiKey: API_KEY, messages, ...(withTools && { tools }) }, sse);
  return {
    framework: sse ? "raw-fetch-sse" : "raw-fetch-json",
    package: "fetch",
    version: process.version,
    run: async () => {
      const messages: unknown[] = [
        { role: "system", content: LEADER_INSTRUCTIONS },
        { role: "user", content: TEAM_INPUT },
      ];
      const call = (await complete(s.leader, messages, true)).tool_calls?.[0];
      if (!call) throw new Error("the leader's first answer has no tool call");
      const { task } = JSON.parse(call.function.arguments) as { task: string };
      const member = s[MEMBERS[0].id];
      const answer = await complete(
        member,
        [
          { role: "system", content: MEMBER_INSTRUCTIONS },
          { role: "user", content: task },
        ],
        false,
      );
      messages.push({ role: "assistant", content: null, tool_calls: [{ ...call, type: "function" }] });
      messages.push({ role: "tool", tool_call_id: call.id, content: answer.content ?? "" });
      return (await complete(s.leader, messages, true)).content ?? "";
    },
    check: (n) => checkScripts(s, n),
    close: async () => undefined,
  };
}

/** One framework's team, its scripts registered for `runs` runs (warm-ups included). */
export async function loadTeam(name: string, serverUrl: string, runs: number, db?: DbConfig): Promise<TeamRunner> {
  switch (name) {
    case "agno-edge":
      return agnoEdge(serverUrl, runs, db);
    case "mastra":
      return mastra(serverUrl, runs);
    case "langgraph":
      return langgraph(serverUrl, runs);
    case "raw-fetch-json":
      return rawFetch(serverUrl, runs, false);
    case "raw-fetch-sse":
      return rawFetch(serverUrl, runs, true);
    default:
      throw new Error(`no team framework ${name}`);
  }
}
