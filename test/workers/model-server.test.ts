import { env } from "cloudflare:workers";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV3FunctionTool, LanguageModelV3Prompt, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { expect, it } from "vitest";
import { scriptModel } from "../support/model-script.js";

/** The scripted model server reached from inside workerd, as the Worker's agents will reach it. */
it("streams a scripted answer and a tool call to @ai-sdk/openai running in workerd", async () => {
  const s = await scriptModel(env.MODEL_SERVER_URL, [
    { text: "Hello from workerd", chunkSize: 3, usage: { inputTokens: 12, outputTokens: 4 } },
    { toolCalls: [{ id: "call_w", name: "lookup", arguments: { q: "edge" } }] },
  ]);
  const model = createOpenAI({ baseURL: s.baseURL, apiKey: "sk-workers" }).chat("gpt-test");
  const prompt: LanguageModelV3Prompt = [{ role: "user", content: [{ type: "text", text: "hi" }] }];

  const text = await collect((await model.doStream({ prompt })).stream);
  expect(
    text
      .filter((p) => p.type === "text-delta")
      .map((p) => p.delta)
      .join(""),
  ).toBe("Hello from workerd");
  expect(text.at(-1)).toMatchObject({
    type: "finish",
    finishReason: { unified: "stop" },
    usage: { inputTokens: { total: 12 }, outputTokens: { total: 4 } },
  });

  const tools: LanguageModelV3FunctionTool[] = [
    { type: "function", name: "lookup", inputSchema: { type: "object", properties: { q: { type: "string" } } } },
  ];
  const call = await collect((await model.doStream({ prompt, tools })).stream);
  expect(call.find((p) => p.type === "tool-call")).toMatchObject({
    toolCallId: "call_w",
    toolName: "lookup",
    input: '{"q":"edge"}',
  });

  const requests = await s.requests();
  expect(requests.map((r) => r.headers.authorization)).toEqual(["Bearer sk-workers", "Bearer sk-workers"]);
});

async function collect(stream: ReadableStream<LanguageModelV3StreamPart>) {
  const parts: LanguageModelV3StreamPart[] = [];
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
  return parts;
}
