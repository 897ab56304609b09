import { expect, inject, it } from "vitest";
import { Agent, ModelRegistry, NotConfiguredError, defaultModelRegistry, openai, vllm } from "../../src/sdk.js";
import { scriptModel } from "../support/model-script.js";

it("an Agent's model string resolves through the default registry at its first run, after the provider is registered", async () => {
  const script = await scriptModel(inject("modelServerUrl"), [{ text: "Hello." }]);
  // Written before any provider is registered, as at the top of a Worker's module.
  const agent = new Agent({ name: "Greeter", model: "openai:gpt-lazy" });
  expect(agent.model).toMatchObject({ id: "gpt-lazy", provider: "openai" });
  defaultModelRegistry.register({ openai }).configure({
    credentials: defaultModelRegistry.credentialsFromEnv({
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: script.baseURL,
    }),
  });
  const out = await agent.run("hi");
  expect(out).toMatchObject({ status: "COMPLETED", content: "Hello.", model: "gpt-lazy", model_provider: "openai" });
  const [request] = await script.requests();
  expect(request!.body).toMatchObject({ model: "gpt-lazy" });
  expect(request!.headers.authorization).toBe("Bearer sk-test");
});

it("a run of an unregistered provider's model ends in an error naming the registered providers", async () => {
  const agent = new Agent({ model: "anthropic:claude-x" });
  const out = await agent.run("hi");
  expect(out.status).toBe("ERROR");
  expect(out.content).toMatch(/no model provider "anthropic" is registered.*registered are openai/);
});

it("a registry resolves the providers registered in it, under the names chosen, with per-model credentials over its defaults", async () => {
  const script = await scriptModel(inject("modelServerUrl"), [{ text: "From vLLM." }]);
  const models = new ModelRegistry({ "my-vllm": vllm }).configure({
    credentials: { "my-vllm": { baseURL: "http://127.0.0.1:9/v1" } },
  });
  expect(models.names()).toEqual(["my-vllm"]);
  expect(() => models.resolve("openai:gpt-x")).toThrow(NotConfiguredError);
  const model = models.resolve("my-vllm:qwen", { credentials: { "my-vllm": { baseURL: script.baseURL } } });
  expect(model).toMatchObject({ id: "qwen", provider: "my-vllm" });
  expect((await new Agent({ model }).run("hi")).content).toBe("From vLLM.");
});
