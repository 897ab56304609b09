import { inject, it } from "vitest";
import { expect } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { createModel, type ProviderName } from "../../src/models/providers.js";
import { tool } from "../../src/tools/tool.js";
import { scriptModel } from "../support/model-script.js";

const weather = tool({
  name: "get_weather",
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => `sunny in ${city}`,
});

/**
 * The providers that speak an OpenAI-style chat protocol, each through its own AI SDK package
 * against the scripted server: a tool call, its result, then the answer.
 */
it.each([
  "openai",
  "groq",
  "cerebras",
  "mistral",
  "openrouter",
  "ollama",
  "vllm",
  "openai-compatible",
] as ProviderName[])("%s runs a tool call and answers through its provider package", async (provider) => {
  const script = await scriptModel(inject("modelServerUrl"), [
    { toolCalls: [{ id: "call1", name: "get_weather", arguments: { city: "Oslo" } }] },
    { text: "Sunny in Oslo." },
  ]);
  const model = createModel(`${provider}:test-model`, {
    credentials: { [provider]: { apiKey: "k", baseURL: script.baseURL } },
  });
  const out = await new Agent({ model, tools: [weather] }).run("Weather in Oslo?");
  expect(out).toMatchObject({ status: "COMPLETED", content: "Sunny in Oslo.", model_provider: provider });
  expect(out.tools[0]).toMatchObject({ tool_name: "get_weather", result: "sunny in Oslo" });
  const requests = await script.requests();
  expect(requests).toHaveLength(2);
  expect(requests[0]!.path).toMatch(/chat\/completions$/);
});
