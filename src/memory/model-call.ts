import { addModelCall } from "../agent/metrics.js";
import type { RunMetrics } from "../agent/run-output.js";
import { errorMessage } from "../errors.js";
import { message, type Message } from "../models/message.js";
import type { Model, ModelRequest } from "../models/model.js";
import type { Tool, ToolContext } from "../tools/tool.js";

/** Model calls one manager call may make: tool rounds end with an answer well before this. */
const MAX_ROUNDS = 8;

/**
 * A manager's tool call carries no run: its tools read only their arguments. Made per call:
 * workerd refuses an AbortController made at a module's top level, when the Worker loads.
 */
const noRun = (): ToolContext => ({
  runId: "",
  sessionId: "",
  userId: null,
  sessionState: {},
  dependencies: {},
  signal: new AbortController().signal,
});

/** One model call, its text and tool calls collected; its tokens added to `metrics` when given. */
async function callOnce(
  model: Model,
  request: ModelRequest,
  metrics: RunMetrics | undefined,
): Promise<{ text: string; toolCalls: Array<{ id: string; name: string; arguments: string }> }> {
  const started = performance.now();
  let text = "";
  const toolCalls: Array<{ id: string; name: string; arguments: string }> = [];
  for await (const chunk of model.stream({ ...request, stream: false })) {
    if (chunk.type === "text") text += chunk.delta;
    else if (chunk.type === "tool_call") toolCalls.push({ id: chunk.id, name: chunk.name, arguments: chunk.arguments });
    else if (chunk.type === "finish" && metrics)
      addModelCall(metrics, {
        id: model.id,
        provider: model.provider,
        usage: chunk.usage,
        duration: (performance.now() - started) / 1000,
        cost: chunk.cost,
      });
  }
  return { text, toolCalls };
}

/**
 * agno's `model.response(messages, tools)` for a manager: the model is called, the tools it
 * calls run (arguments checked against their schemas; a bad call is answered with the problem,
 * as the run loop answers it), and it is called again with their answers until it answers
 * without tools. Returns its last text and how many tool calls it made.
 */
export async function respondWithTools(
  model: Model,
  messages: Message[],
  tools: Tool[],
  metrics?: RunMetrics,
): Promise<{ text: string; toolCalls: number }> {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const definitions = tools.map((t) => t.definition());
  const history = [...messages];
  let calls = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const reply = await callOnce(
      model,
      { messages: history, ...(tools.length ? { tools: definitions } : {}) },
      metrics,
    );
    if (reply.toolCalls.length === 0) return { text: reply.text, toolCalls: calls };
    history.push(
      message("assistant", reply.text || null, {
        tool_calls: reply.toolCalls.map((c) => ({
          id: c.id,
          type: "function" as const,
          function: { name: c.name, arguments: c.arguments },
        })),
      }),
    );
    for (const call of reply.toolCalls) {
      calls++;
      history.push(
        message("tool", await runTool(byName.get(call.name), call.name, call.arguments), {
          tool_call_id: call.id,
          tool_name: call.name,
        }),
      );
    }
  }
  return { text: "", toolCalls: calls };
}

async function runTool(tool: Tool | undefined, name: string, raw: string): Promise<string> {
  if (!tool?.execute) return `Unknown tool ${name}`;
  let args: unknown;
  try {
    args = raw.trim() === "" ? {} : JSON.parse(raw);
  } catch {
    return `The arguments of ${name} are not JSON`;
  }
  const parsed = tool.parameters.safeParse(args);
  if (!parsed.success) return `Invalid arguments for ${name}: ${parsed.error.issues[0]?.message ?? "invalid"}`;
  // A failing tool is answered with its error, as the run's tools are: one bad call must not end the others.
  try {
    const result = await tool.execute(parsed.data, noRun());
    return typeof result === "string" ? result : JSON.stringify(result);
  } catch (error) {
    return `Error: ${errorMessage(error)}`;
  }
}

/** One plain model call (a structured answer when `responseFormat` is given): its text. */
export async function respond(
  model: Model,
  messages: Message[],
  metrics?: RunMetrics,
  responseFormat?: ModelRequest["responseFormat"],
): Promise<string> {
  return (await callOnce(model, { messages, ...(responseFormat ? { responseFormat } : {}) }, metrics)).text;
}
