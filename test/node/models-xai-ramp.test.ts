import { describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type { RunEvent } from "../../src/agent/events.js";
import { ModelRegistry } from "../../src/models/model-registry.js";
import { BUILTIN_PROVIDERS, createModel, credentialsFromEnv } from "../../src/models/providers.js";
import { rampProvider } from "../../src/models/providers/ramp.js";
import { tool } from "../../src/tools/tool.js";
import { scriptModel } from "../support/model-script.js";

const weather = tool({
  name: "get_weather",
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => `sunny in ${city}`,
});

const script = () =>
  scriptModel(inject("modelServerUrl"), [
    { toolCalls: [{ id: "call1", name: "get_weather", arguments: { city: "Oslo" } }] },
    { text: "Sunny in Oslo." },
  ]);

async function streamed(agent: Agent, input: string) {
  const events: RunEvent[] = [];
  for await (const e of agent.run(input, { stream: true })) events.push(e);
  return events;
}

describe("xai", () => {
  it("runs a streamed tool call over Chat Completions with XAI_API_KEY, on agno's default model", async () => {
    const s = await script();
    const model = createModel("xai", {
      credentials: credentialsFromEnv({ XAI_API_KEY: "xai-key", XAI_BASE_URL: s.baseURL }),
    });
    const events = await streamed(new Agent({ model, tools: [weather] }), "Weather in Oslo?");
    const done = events.find((e) => e.event === "RunCompleted") as { content?: string } | undefined;
    expect(done?.content).toBe("Sunny in Oslo.");
    const [first, second] = await s.requests();
    expect(first!.path).toBe("/v1/chat/completions");
    expect(first!.headers.authorization).toBe("Bearer xai-key");
    expect(first!.body).toMatchObject({ model: "grok-4-1-fast-non-reasoning-latest", stream: true });
    expect((second!.body.messages as { role: string }[]).map((m) => m.role)).toContain("tool");
  });

  it("xai-responses speaks the Responses API, stateless", async () => {
    const s = await script();
    const model = createModel("xai-responses:grok-4.3", {
      credentials: { "xai-responses": { apiKey: "k", baseURL: s.baseURL } },
    });
    const out = await new Agent({ model, tools: [weather] }).run("Weather in Oslo?");
    expect(out).toMatchObject({ status: "COMPLETED", content: "Sunny in Oslo.", model_provider: "xai-responses" });
    const requests = await s.requests();
    expect(requests.map((r) => r.path)).toEqual(["/v1/responses", "/v1/responses"]);
    expect(requests[0]!.body).toMatchObject({ model: "grok-4.3", store: false });
  });
});

describe("ramp", () => {
  it("runs a streamed tool call over /v1/responses with agno's default model, tools as the API defines them", async () => {
    const s = await script();
    const model = createModel("ramp", {
      credentials: credentialsFromEnv({ RAMP_ROUTER_API_KEY: "ramp-key", RAMP_ROUTER_BASE_URL: s.baseURL }),
    });
    const events = await streamed(new Agent({ model, tools: [weather] }), "Weather in Oslo?");
    expect(events.find((e) => e.event === "RunCompleted")).toMatchObject({ content: "Sunny in Oslo." });
    const [first, second] = await s.requests();
    expect(first!.path).toBe("/v1/responses");
    expect(first!.headers.authorization).toBe("Bearer ramp-key");
    expect(first!.body).toMatchObject({ model: "gpt-5.6-luna", stream: true });
    // No reasoning block nobody asked for (Router refuses fields a model does not take), no chaining
    expect(first!.body).not.toHaveProperty("reasoning");
    expect(second!.body).not.toHaveProperty("previous_response_id");
    for (const t of first!.body.tools as Record<string, unknown>[])
      expect(Object.keys(t).every((k) => ["type", "name", "description", "parameters", "strict"].includes(k))).toBe(
        true,
      );
    const items = second!.body.input as { type?: string; output?: string }[];
    expect(items.find((i) => i.type === "function_call_output")?.output).toContain("sunny in Oslo");
  });

  it("sends a candidate list instead of the model id, with Router's own fields", async () => {
    const s = await scriptModel(inject("modelServerUrl"), [{ text: "routed" }]);
    const registry = new ModelRegistry({
      ramp: rampProvider({ models: ["openai:gpt-5-nano", "anthropic:claude-haiku-4-5"], providerTimeout: 20 }),
    });
    const model = registry.resolve("ramp", { credentials: { ramp: { apiKey: "k", baseURL: s.baseURL } } });
    const out = await new Agent({ model }).run("hi");
    expect(out).toMatchObject({ status: "COMPLETED", content: "routed" });
    const [request] = await s.requests();
    expect(request!.body).not.toHaveProperty("model");
    expect(request!.body).toMatchObject({
      models: ["openai:gpt-5-nano", "anthropic:claude-haiku-4-5"],
      provider_timeout: 20,
    });
  });

  it("refuses the flex tier with a candidate list, as Router does", () => {
    expect(() => rampProvider({ models: ["openai:gpt-5-nano"], allowFlexTier: true })).toThrow(/allowFlexTier/);
  });
});

it("a spec naming only the provider gets agno 3.0's default model id", () => {
  const registry = new ModelRegistry(BUILTIN_PROVIDERS);
  const defaults = Object.fromEntries(registry.names().map((n) => [n, registry.defaultModelOf(n)]));
  expect(defaults).toMatchObject({
    openai: "gpt-5.4-mini",
    "openai-responses": "gpt-5.4-mini",
    anthropic: "claude-sonnet-4-5-20250929",
    google: "gemini-3.7-flash",
    groq: "openai/gpt-oss-120b",
    cerebras: "gpt-oss-120b",
    mistral: "mistral-large-latest",
    openrouter: "gpt-5.4-mini",
    ollama: "llama3.1",
    xai: "grok-4-1-fast-non-reasoning-latest",
    "xai-responses": "grok-4-1-fast-non-reasoning-latest",
    ramp: "gpt-5.6-luna",
  });
  expect(registry.parse("google")).toEqual({ provider: "google", modelId: "gemini-3.7-flash" });
});
