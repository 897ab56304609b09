import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3FunctionTool,
  type LanguageModelV3Prompt,
  type LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { describe, expect, inject, it, vi } from "vitest";
import { scriptModel, type Turn } from "../support/model-script.js";
import { startModelServer } from "../support/model-server.js";

/**
 * The scripted model server against the real provider packages, at the LanguageModelV3 level:
 * if @ai-sdk/openai, @ai-sdk/anthropic and @ai-sdk/google parse what it sends, agent tests
 * exercise the same client code a deployment does.
 */
const server = inject("modelServerUrl");

const prompt: LanguageModelV3Prompt = [
  { role: "system", content: "be brief" },
  { role: "user", content: [{ type: "text", text: "weather in Paris?" }] },
];
const tool = (name: string): LanguageModelV3FunctionTool => ({
  type: "function",
  name,
  description: `the ${name} tool`,
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
});
const tools = [tool("get_weather"), tool("get_time")];
const usage = { inputTokens: 20, outputTokens: 8, reasoningTokens: 3, cachedTokens: 5 };

const openai = (baseURL: string) => createOpenAI({ baseURL, apiKey: "sk-test" }).chat("gpt-test");
const anthropic = (baseURL: string) => createAnthropic({ baseURL, apiKey: "ant-test" })("claude-test");
const google = (baseURL: string) => createGoogleGenerativeAI({ baseURL, apiKey: "goog-test" })("gemini-test");

async function script(turns: Turn[]) {
  return scriptModel(server, turns);
}

/** Reads the whole stream; `parts` keeps what arrived even when the stream fails. */
async function collect(stream: ReadableStream<LanguageModelV3StreamPart>, parts: LanguageModelV3StreamPart[] = []) {
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
  return parts;
}

function partsOf<T extends LanguageModelV3StreamPart["type"]>(parts: LanguageModelV3StreamPart[], type: T) {
  return parts.filter((p): p is Extract<LanguageModelV3StreamPart, { type: T }> => p.type === type);
}

const textOf = (parts: LanguageModelV3StreamPart[]) =>
  partsOf(parts, "text-delta")
    .map((p) => p.delta)
    .join("");

/** The APICallError a model call fails with. */
async function apiError(call: PromiseLike<unknown>): Promise<APICallError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(APICallError.isInstance(error)).toBe(true);
  return error as APICallError;
}

describe("OpenAI Chat Completions", () => {
  it("streams text in chunks that reassemble, with usage when include_usage is asked, and records the request", async () => {
    const s = await script([{ text: "Hello from the script", chunkSize: 5, usage }]);
    const { stream } = await openai(s.baseURL).doStream({ prompt });
    const parts = await collect(stream);

    expect(textOf(parts)).toBe("Hello from the script");
    expect(partsOf(parts, "text-delta").filter((p) => p.delta !== "")).toHaveLength(5);
    const [finish] = partsOf(parts, "finish");
    expect(finish!.finishReason).toEqual({ unified: "stop", raw: "stop" });
    expect(finish!.usage.inputTokens).toEqual({ total: 20, noCache: 15, cacheRead: 5, cacheWrite: undefined });
    expect(finish!.usage.outputTokens).toEqual({ total: 8, text: 5, reasoning: 3 });

    const [request] = await s.requests();
    expect(request!.path).toBe("/v1/chat/completions");
    expect(request!.headers.authorization).toBe("Bearer sk-test");
    expect(request!.body).toMatchObject({
      model: "gpt-test",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "weather in Paris?" },
      ],
    });
  });

  it("streams two parallel tool calls whose arguments arrive in fragments", async () => {
    const s = await script([
      {
        toolCalls: [
          { id: "call_weather", name: "get_weather", arguments: { city: "Paris" } },
          { name: "get_time", arguments: { city: "Tokyo" } },
        ],
      },
    ]);
    const { stream } = await openai(s.baseURL).doStream({ prompt, tools });
    const parts = await collect(stream);

    const calls = partsOf(parts, "tool-call");
    expect(calls.map((c) => [c.toolName, JSON.parse(c.input)])).toEqual([
      ["get_weather", { city: "Paris" }],
      ["get_time", { city: "Tokyo" }],
    ]);
    expect(calls[0]!.toolCallId).toBe("call_weather");
    expect(calls[1]!.toolCallId).toMatch(/^call_\d+$/);
    expect(partsOf(parts, "tool-input-delta").filter((d) => d.id === "call_weather").length).toBeGreaterThan(1);
    expect(partsOf(parts, "finish")[0]!.finishReason).toEqual({ unified: "tool-calls", raw: "tool_calls" });

    const [request] = await s.requests();
    expect(request!.body.tools).toEqual([
      {
        type: "function",
        function: { name: "get_weather", description: "the get_weather tool", parameters: tools[0]!.inputSchema },
      },
      {
        type: "function",
        function: { name: "get_time", description: "the get_time tool", parameters: tools[1]!.inputSchema },
      },
    ]);
  });

  it("passes text before a tool call, and malformed arguments verbatim", async () => {
    const s = await script([
      { text: "Let me check.", toolCalls: [{ name: "get_weather", arguments: '{"city": "Par' }] },
    ]);
    const parts = await collect((await openai(s.baseURL).doStream({ prompt, tools })).stream);
    expect(textOf(parts)).toBe("Let me check.");
    expect(partsOf(parts, "tool-call").map((c) => c.input)).toEqual(['{"city": "Par']);
  });

  it("answers without streaming: text, tool calls, usage, and what was asked (response_format, reasoning_effort)", async () => {
    const s = await script([
      { text: "It is sunny.", usage },
      { toolCalls: [{ id: "call_1x", name: "get_weather", arguments: { city: "Paris" } }] },
    ]);
    const model = openai(s.baseURL);
    const answer = await model.doGenerate({
      prompt,
      responseFormat: { type: "json", schema: { type: "object", properties: { sky: { type: "string" } } } },
      providerOptions: { openai: { reasoningEffort: "low" } },
    });
    expect(answer.content).toEqual([{ type: "text", text: "It is sunny." }]);
    expect(answer.finishReason).toEqual({ unified: "stop", raw: "stop" });
    expect(answer.usage.inputTokens.total).toBe(20);
    expect(answer.usage.outputTokens).toEqual({ total: 8, text: 5, reasoning: 3 });

    const second = await model.doGenerate({ prompt, tools });
    expect(second.content).toEqual([
      { type: "tool-call", toolCallId: "call_1x", toolName: "get_weather", input: '{"city":"Paris"}' },
    ]);
    expect(second.finishReason.unified).toBe("tool-calls");

    const [first] = await s.requests();
    expect(first!.body.stream).toBeUndefined();
    expect(first!.body.reasoning_effort).toBe("low");
    expect(first!.body.response_format).toMatchObject({ type: "json_schema", json_schema: { name: "response" } });
  });

  it("maps a truncated answer to finish reason length", async () => {
    const s = await script([{ text: "cut sho", truncated: true }]);
    const parts = await collect((await openai(s.baseURL).doStream({ prompt })).stream);
    expect(partsOf(parts, "finish")[0]!.finishReason).toEqual({ unified: "length", raw: "length" });
  });

  it("surfaces error turns as APICallError with the status, headers, message and retryability", async () => {
    const s = await script([
      { error: { status: 429, message: "Rate limit reached", headers: { "retry-after": "2" } } },
      { error: { status: 401, message: "Incorrect API key provided" } },
      {
        error: {
          status: 400,
          message: "This model's maximum context length is 8192 tokens.",
          code: "context_length_exceeded",
        },
      },
      { error: { status: 503, body: "<html>upstream unavailable</html>" } },
    ]);
    const model = openai(s.baseURL);

    const limited = await apiError(model.doStream({ prompt }));
    expect([limited.statusCode, limited.isRetryable, limited.message]).toEqual([429, true, "Rate limit reached"]);
    expect(limited.responseHeaders?.["retry-after"]).toBe("2");

    const unauthorized = await apiError(model.doGenerate({ prompt }));
    expect([unauthorized.statusCode, unauthorized.isRetryable]).toEqual([401, false]);

    const tooLong = await apiError(model.doGenerate({ prompt }));
    expect([tooLong.statusCode, tooLong.isRetryable, tooLong.message]).toEqual([
      400,
      false,
      "This model's maximum context length is 8192 tokens.",
    ]);
    expect(tooLong.data).toMatchObject({ error: { code: "context_length_exceeded", type: "invalid_request_error" } });

    const unavailable = await apiError(model.doGenerate({ prompt }));
    expect([unavailable.statusCode, unavailable.isRetryable, unavailable.responseBody]).toEqual([
      503,
      true,
      "<html>upstream unavailable</html>",
    ]);
  });

  it("fails loudly when the script has no turns left", async () => {
    const s = await script([{ text: "only one" }]);
    const model = openai(s.baseURL);
    await model.doGenerate({ prompt });
    const exhausted = await apiError(model.doGenerate({ prompt }));
    expect(exhausted.statusCode).toBe(500);
    expect(exhausted.message).toMatch(new RegExp(`^script ${s.id} exhausted`));
  });

  it("keeps a hanging request open until the client aborts, and records the disconnect", async () => {
    const s = await script([{ hang: true }, { text: "still serving" }]);
    const model = openai(s.baseURL);
    const abort = new AbortController();
    const call = model.doStream({ prompt, abortSignal: abort.signal });
    await vi.waitFor(async () => expect(await s.requests()).toHaveLength(1));
    abort.abort();
    await expect(call).rejects.toThrow(/abort/i);
    await vi.waitFor(async () => expect((await s.requests())[0]!.disconnected).toBe(true));
    expect(textOf(await collect((await model.doStream({ prompt })).stream))).toBe("still serving");
  });

  it("paces chunks with delayMs so a run can be cancelled mid-stream", async () => {
    const text = "a slow answer that takes a while to arrive";
    const s = await script([{ text, chunkSize: 2, delayMs: 25 }]);
    const abort = new AbortController();
    const { stream } = await openai(s.baseURL).doStream({ prompt, abortSignal: abort.signal });
    const parts: LanguageModelV3StreamPart[] = [];
    const reading = collect(stream, parts);
    await vi.waitFor(() => expect(textOf(parts).length).toBeGreaterThanOrEqual(4), { interval: 5 });
    abort.abort();
    await expect(reading).rejects.toThrow(/abort/i);
    expect(textOf(parts).length).toBeLessThan(text.length);
    await vi.waitFor(async () => expect((await s.requests())[0]!.disconnected).toBe(true));
  });

  it("drops the connection mid-stream on a dropAfterChunks turn", async () => {
    const s = await script([{ dropAfterChunks: 3, text: "hello world, this is cut", chunkSize: 4 }]);
    const { stream } = await openai(s.baseURL).doStream({ prompt });
    const parts: LanguageModelV3StreamPart[] = [];
    // Three events: the role with empty content, "hell", "o wo"; then the socket is gone.
    const dropped = await apiError(collect(stream, parts));
    // The SDK reports a body cut short as a retryable failure of the (200) response.
    expect([dropped.statusCode, dropped.isRetryable]).toEqual([200, true]);
    expect(textOf(parts)).toBe("hello wo");
    expect(partsOf(parts, "finish")).toEqual([]);
    expect((await s.requests())[0]!.disconnected).toBe(false);
  });
});

describe("Anthropic Messages", () => {
  it("streams thinking and text with usage, end_turn, and records the request", async () => {
    const s = await script([{ text: "Sunny in Paris.", reasoning: "The user wants weather.", chunkSize: 6, usage }]);
    const parts = await collect((await anthropic(s.baseURL).doStream({ prompt })).stream);

    expect(textOf(parts)).toBe("Sunny in Paris.");
    expect(partsOf(parts, "text-delta").length).toBe(3);
    expect(
      partsOf(parts, "reasoning-delta")
        .map((p) => p.delta)
        .join(""),
    ).toBe("The user wants weather.");
    expect(partsOf(parts, "reasoning-delta").some((p) => p.providerMetadata?.anthropic?.signature)).toBe(true);
    const [finish] = partsOf(parts, "finish");
    expect(finish!.finishReason).toEqual({ unified: "stop", raw: "end_turn" });
    expect(finish!.usage.inputTokens).toEqual({ total: 20, noCache: 15, cacheRead: 5, cacheWrite: 0 });
    expect(finish!.usage.outputTokens).toEqual({ total: 8, text: 5, reasoning: 3 });

    const [request] = await s.requests();
    expect(request!.path).toBe("/v1/messages");
    expect(request!.headers["x-api-key"]).toBe("ant-test");
    expect(request!.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request!.body).toMatchObject({
      model: "claude-test",
      stream: true,
      system: [{ type: "text", text: "be brief" }],
      messages: [{ role: "user", content: [{ type: "text", text: "weather in Paris?" }] }],
    });
  });

  it("streams two parallel tool_use blocks whose input arrives as input_json_delta fragments", async () => {
    const s = await script([
      {
        text: "Checking both.",
        toolCalls: [
          { id: "toolu_weather", name: "get_weather", arguments: { city: "Paris" } },
          { name: "get_time", arguments: { city: "Tokyo" } },
        ],
      },
    ]);
    const parts = await collect((await anthropic(s.baseURL).doStream({ prompt, tools })).stream);

    expect(textOf(parts)).toBe("Checking both.");
    const calls = partsOf(parts, "tool-call");
    expect(calls.map((c) => [c.toolName, JSON.parse(c.input)])).toEqual([
      ["get_weather", { city: "Paris" }],
      ["get_time", { city: "Tokyo" }],
    ]);
    expect(calls[0]!.toolCallId).toBe("toolu_weather");
    expect(calls[1]!.toolCallId).toMatch(/^toolu_\d+$/);
    expect(partsOf(parts, "tool-input-delta").filter((d) => d.id === "toolu_weather").length).toBeGreaterThan(1);
    expect(partsOf(parts, "finish")[0]!.finishReason).toEqual({ unified: "tool-calls", raw: "tool_use" });

    const [request] = await s.requests();
    expect(request!.body.tools).toMatchObject([
      { name: "get_weather", description: "the get_weather tool", input_schema: tools[0]!.inputSchema },
      { name: "get_time", description: "the get_time tool", input_schema: tools[1]!.inputSchema },
    ]);
  });

  it("answers without streaming: text and tool_use content, usage, tool_use and max_tokens stop reasons", async () => {
    const s = await script([
      {
        text: "Let me look.",
        toolCalls: [{ id: "toolu_1x", name: "get_weather", arguments: { city: "Paris" } }],
        usage,
      },
      { text: "cut sho", truncated: true },
    ]);
    const model = anthropic(s.baseURL);
    const answer = await model.doGenerate({ prompt, tools });
    expect(answer.content).toEqual([
      { type: "text", text: "Let me look." },
      { type: "tool-call", toolCallId: "toolu_1x", toolName: "get_weather", input: '{"city":"Paris"}' },
    ]);
    expect(answer.finishReason).toEqual({ unified: "tool-calls", raw: "tool_use" });
    expect(answer.usage.inputTokens).toMatchObject({ total: 20, cacheRead: 5 });
    expect(answer.usage.outputTokens.total).toBe(8);

    const truncated = await model.doGenerate({ prompt });
    expect(truncated.finishReason).toEqual({ unified: "length", raw: "max_tokens" });
    expect((await s.requests())[0]!.body.stream).toBeUndefined();
  });

  it("surfaces error turns in Anthropic's error shape as APICallError", async () => {
    const s = await script([
      {
        error: {
          status: 429,
          message: "Number of requests has exceeded your rate limit",
          headers: { "retry-after": "7" },
        },
      },
      { error: { status: 400, message: "prompt is too long: 210000 tokens > 200000 maximum" } },
      { error: { status: 529, message: "Overloaded" } },
    ]);
    const model = anthropic(s.baseURL);

    const limited = await apiError(model.doStream({ prompt }));
    expect([limited.statusCode, limited.isRetryable, limited.responseHeaders?.["retry-after"]]).toEqual([
      429,
      true,
      "7",
    ]);
    expect(limited.data).toEqual({
      type: "error",
      error: { type: "rate_limit_error", message: "Number of requests has exceeded your rate limit" },
    });

    const tooLong = await apiError(model.doGenerate({ prompt }));
    expect([tooLong.statusCode, tooLong.isRetryable, tooLong.message]).toEqual([
      400,
      false,
      "prompt is too long: 210000 tokens > 200000 maximum",
    ]);

    const overloaded = await apiError(model.doGenerate({ prompt }));
    expect([overloaded.statusCode, overloaded.isRetryable]).toEqual([529, true]);
    expect(overloaded.data).toMatchObject({ error: { type: "overloaded_error" } });
  });
});

describe("Gemini generateContent", () => {
  it("streams thoughts and text in chunks that reassemble, with usage and STOP, and records the request", async () => {
    const s = await script([{ text: "Sunny in Paris.", reasoning: "The user wants weather.", chunkSize: 6, usage }]);
    const parts = await collect((await google(s.baseURL).doStream({ prompt })).stream);

    expect(textOf(parts)).toBe("Sunny in Paris.");
    expect(partsOf(parts, "text-delta")).toHaveLength(3);
    expect(
      partsOf(parts, "reasoning-delta")
        .map((p) => p.delta)
        .join(""),
    ).toBe("The user wants weather.");
    const [finish] = partsOf(parts, "finish");
    expect(finish!.finishReason).toEqual({ unified: "stop", raw: "STOP" });
    expect(finish!.usage.inputTokens).toEqual({ total: 20, noCache: 15, cacheRead: 5, cacheWrite: undefined });
    expect(finish!.usage.outputTokens).toEqual({ total: 8, text: 5, reasoning: 3 });

    const [request] = await s.requests();
    expect(request!.path).toBe("/v1/models/gemini-test:streamGenerateContent");
    expect(request!.headers["x-goog-api-key"]).toBe("goog-test");
    expect(request!.body).toMatchObject({
      systemInstruction: { parts: [{ text: "be brief" }] },
      contents: [{ role: "user", parts: [{ text: "weather in Paris?" }] }],
    });
  });

  it("sends parallel function calls whole, streamed or not, with scripted ids only", async () => {
    const calls = [
      { id: "fc_weather", name: "get_weather", arguments: { city: "Paris" } },
      { name: "get_time", arguments: { city: "Tokyo" } },
    ];
    const s = await script([
      { text: "Checking both.", toolCalls: calls },
      { toolCalls: calls, usage },
      { text: "cut sho", truncated: true },
    ]);
    const model = google(s.baseURL);

    const parts = await collect((await model.doStream({ prompt, tools })).stream);
    expect(textOf(parts)).toBe("Checking both.");
    const streamed = partsOf(parts, "tool-call");
    expect(streamed.map((c) => [c.toolName, JSON.parse(c.input)])).toEqual([
      ["get_weather", { city: "Paris" }],
      ["get_time", { city: "Tokyo" }],
    ]);
    expect(streamed[0]!.toolCallId).toBe("fc_weather");
    expect(streamed[1]!.toolCallId).not.toMatch(/^generated-by-script-/); // the SDK's own id
    expect(partsOf(parts, "finish")[0]!.finishReason).toEqual({ unified: "tool-calls", raw: "STOP" });

    const answer = await model.doGenerate({ prompt, tools });
    expect(answer.content.map((c) => c.type === "tool-call" && [c.toolName, c.input])).toEqual([
      ["get_weather", '{"city":"Paris"}'],
      ["get_time", '{"city":"Tokyo"}'],
    ]);
    expect(answer.finishReason).toEqual({ unified: "tool-calls", raw: "STOP" });
    expect(answer.usage.outputTokens).toEqual({ total: 8, text: 5, reasoning: 3 });

    const truncated = await model.doGenerate({ prompt });
    expect(truncated.finishReason).toEqual({ unified: "length", raw: "MAX_TOKENS" });

    const requests = await s.requests();
    expect(requests.map((r) => r.path.split(":")[1])).toEqual([
      "streamGenerateContent",
      "generateContent",
      "generateContent",
    ]);
    expect(requests[0]!.body.tools).toMatchObject([
      { functionDeclarations: [{ name: "get_weather" }, { name: "get_time" }] },
    ]);
  });

  it("surfaces error turns in Google's error shape as APICallError, and drops mid-stream", async () => {
    const s = await script([
      {
        error: {
          status: 429,
          message: "Resource has been exhausted (e.g. check quota).",
          headers: { "retry-after": "3" },
        },
      },
      { error: { status: 400, message: "API key not valid. Please pass a valid API key." } },
      { error: { status: 503, message: "The model is overloaded. Please try again later." } },
      { dropAfterChunks: 2, text: "hello world, this is cut", chunkSize: 4 },
    ]);
    const model = google(s.baseURL);

    const limited = await apiError(model.doStream({ prompt }));
    expect([limited.statusCode, limited.isRetryable, limited.responseHeaders?.["retry-after"]]).toEqual([
      429,
      true,
      "3",
    ]);
    expect(limited.data).toEqual({
      error: { code: 429, message: "Resource has been exhausted (e.g. check quota).", status: "RESOURCE_EXHAUSTED" },
    });

    const invalid = await apiError(model.doGenerate({ prompt }));
    expect([invalid.statusCode, invalid.isRetryable, invalid.message]).toEqual([
      400,
      false,
      "API key not valid. Please pass a valid API key.",
    ]);
    expect(invalid.data).toMatchObject({ error: { status: "INVALID_ARGUMENT" } });

    const overloaded = await apiError(model.doGenerate({ prompt }));
    expect([overloaded.statusCode, overloaded.isRetryable]).toEqual([503, true]);
    expect(overloaded.data).toMatchObject({ error: { status: "UNAVAILABLE" } });

    const parts: LanguageModelV3StreamPart[] = [];
    const dropped = await apiError(collect((await model.doStream({ prompt })).stream, parts));
    expect([dropped.statusCode, dropped.isRetryable]).toEqual([200, true]);
    expect(textOf(parts)).toBe("hello wo");
    expect(partsOf(parts, "finish")).toEqual([]);
  });
});

describe("scripts", () => {
  it("are independent: interleaved calls on two scripts each get their own turns", async () => {
    const [a, b] = await Promise.all([script([{ text: "a1" }, { text: "a2" }]), script([{ text: "b1" }])]);
    const gen = async (model: LanguageModelV3) => (await model.doGenerate({ prompt })).content;
    expect(await Promise.all([gen(openai(a.baseURL)), gen(anthropic(b.baseURL))])).toEqual([
      [{ type: "text", text: "a1" }],
      [{ type: "text", text: "b1" }],
    ]);
    expect(await gen(openai(a.baseURL))).toEqual([{ type: "text", text: "a2" }]);
  });

  it("are refused when malformed, and unknown ones answer 404", async () => {
    for (const body of [{ turn: [] }, { turns: [{ txt: "typo" }] }]) {
      expect((await fetch(`${server}/scripts`, { method: "POST", body: JSON.stringify(body) })).status).toBe(400);
    }
    expect((await fetch(`${server}/scripts/nope/requests`)).status).toBe(404);
    expect((await apiError(openai(`${server}/s/nope/v1`).doGenerate({ prompt }))).statusCode).toBe(404);
  });
});

describe("startModelServer", () => {
  it("stops promptly while a request hangs, failing that request", async () => {
    const own = await startModelServer();
    const s = await scriptModel(own.url, [{ hang: true }]);
    const call = openai(s.baseURL).doGenerate({ prompt });
    await vi.waitFor(async () => expect(await s.requests()).toHaveLength(1));
    await own.stop();
    await expect(call).rejects.toThrow();
  });
});
