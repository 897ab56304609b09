import { env } from "cloudflare:workers";
import { expect, inject, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { createModel } from "../../src/models/providers.js";
import { MCPTools } from "../../src/tools/mcp/index.js";
import { scriptModel } from "../support/model-script.js";

/** The MCP client inside workerd: Streamable HTTP and SSE, against the suite's MCP test server. */
async function model(turns: Parameters<typeof scriptModel>[1]) {
  const script = await scriptModel(env.MODEL_SERVER_URL, turns);
  return createModel("openai:gpt-test", { credentials: { openai: { apiKey: "sk-w", baseURL: script.baseURL } } });
}

it("an agent in workerd calls a remote MCP tool, twice over one kept connection, and gets its image as media", async () => {
  const mcp = new MCPTools({ url: `${inject("mcpServerUrl")}/mcp`, include: ["add", "picture"] });
  const agent = new Agent({
    model: await model([
      { toolCalls: [{ name: "add", arguments: { a: 40, b: 2 } }] },
      { text: "42" },
      { toolCalls: [{ name: "picture", arguments: {} }] },
      { text: "grey" },
    ]),
    tools: [mcp],
  });
  const first = await agent.run("40 + 2?");
  expect(first.status).toBe("COMPLETED");
  expect(first.tools[0]).toMatchObject({ tool_name: "add", result: "42" });
  const second = await agent.run("draw");
  expect(second.status).toBe("COMPLETED");
  expect(second.images?.[0]).toMatchObject({ mime_type: "image/jpeg" });
});

it("an agent in workerd calls a tool over the older SSE transport", async () => {
  const agent = new Agent({
    model: await model([{ toolCalls: [{ name: "echo", arguments: { message: "from workerd" } }] }, { text: "ok" }]),
    tools: [new MCPTools({ url: `${inject("mcpServerUrl")}/sse`, transport: "sse", include: ["echo"] })],
  });
  const out = await agent.run("echo");
  expect(out.tools[0]).toMatchObject({ tool_name: "echo", result: "from workerd" });
});
