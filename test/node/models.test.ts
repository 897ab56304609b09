import { expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { createModel, credentialsFromEnv, parseModelSpec, PROVIDER_ENV_VARS } from "../../src/models/providers.js";
import { ValidationError } from "../../src/errors.js";
import { inject } from "vitest";
import { scriptModel } from "../support/model-script.js";

it("parses provider:model-id strings, with each provider's default model", () => {
  expect(parseModelSpec("openai:gpt-4.1-mini")).toEqual({ provider: "openai", modelId: "gpt-4.1-mini" });
  expect(parseModelSpec("ollama:llama3.2:3b")).toEqual({ provider: "ollama", modelId: "llama3.2:3b" });
  expect(parseModelSpec("groq")).toEqual({ provider: "groq", modelId: "openai/gpt-oss-120b" });
  expect(parseModelSpec("cerebras:")).toEqual({ provider: "cerebras", modelId: "gpt-oss-120b" });
  expect(() => parseModelSpec("skynet:t800")).toThrow(ValidationError);
  expect(() => parseModelSpec("openai-compatible")).toThrow(/names no model id/);
  expect(() => createModel("openai-compatible:my-model")).toThrow(/base URL/);
});

it.each([
  ["openai:gpt-x", "openai"],
  ["anthropic:claude-x", "anthropic"],
  ["google:gemini-x", "google"],
  ["groq:llama-x", "groq"],
  ["cerebras:llama-x", "cerebras"],
  ["mistral:mistral-x", "mistral"],
  ["openrouter:meta/llama", "openrouter"],
  ["ollama:llama3.2", "ollama"],
  ["vllm:qwen", "vllm"],
])("builds %s on the %s provider", (spec, provider) => {
  const model = createModel(spec, { credentials: { [provider]: { apiKey: "k", baseURL: "http://127.0.0.1:9" } } });
  expect(model.provider).toBe(provider);
  expect(model.id).toBe(spec.slice(spec.indexOf(":") + 1));
});

it("reads keys and base URLs from a plain environment record", () => {
  const c = credentialsFromEnv({
    OPENAI_API_KEY: "sk",
    OPENAI_BASE_URL: "http://llm:8000/v1",
    GROQ_API_KEY: "",
    OLLAMA_BASE_URL: "http://box:11434/v1",
  });
  expect(c.openai).toEqual({ apiKey: "sk", baseURL: "http://llm:8000/v1" });
  expect(c.groq!.apiKey).toBeUndefined();
  expect(c.ollama!.baseURL).toBe("http://box:11434/v1");
  expect(credentialsFromEnv({ GOOGLE_API_KEY: "g" }).google!.apiKey).toBe("g"); // the fallback name
  expect(PROVIDER_ENV_VARS).toEqual(expect.arrayContaining(["OPENAI_BASE_URL", "GOOGLE_API_KEY", "VLLM_API_KEY"]));
});

it("passes OpenAI's reasoning_effort, service_tier and verbosity through to the wire", async () => {
  const script = await scriptModel(inject("modelServerUrl"), [{ text: "ok" }]);
  // A gpt-4 id: the provider itself drops tiers a model does not support.
  const model = createModel("openai:gpt-4.1-test", {
    credentials: { openai: { apiKey: "k", baseURL: script.baseURL } },
    reasoningEffort: "low",
    serviceTier: "priority",
    verbosity: "high",
    temperature: 0.2,
  });
  await new Agent({ model }).run("hi");
  const [request] = await script.requests();
  expect(request!.body).toMatchObject({
    model: "gpt-4.1-test",
    reasoning_effort: "low",
    service_tier: "priority",
    verbosity: "high",
    temperature: 0.2,
  });
});

it("reports cost when the model has pricing", async () => {
  const script = await scriptModel(inject("modelServerUrl"), [
    { text: "ok", usage: { inputTokens: 1_000_000, outputTokens: 500_000 } },
  ]);
  const model = createModel("openai:gpt-test", {
    credentials: { openai: { apiKey: "k", baseURL: script.baseURL } },
    pricing: { inputPerMTok: 2, outputPerMTok: 8 },
  });
  const out = await new Agent({ model }).run("hi");
  expect(out.metrics.cost).toBeCloseTo(6, 6);
  expect(out.metrics.details!.model[0]).toMatchObject({
    id: "gpt-test",
    provider: "openai",
    input_tokens: 1_000_000,
    cost: 6,
  });
});
