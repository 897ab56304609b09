import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { createModel } from "../../src/models/providers.js";
import { R2Storage } from "../../src/offload/r2-storage.js";
import { CalculatorTools, DateTimeTools, FileTools, WebFetchTools } from "../../src/sdk.js";
import { scriptModel } from "../support/model-script.js";

/** The built-in toolkits inside workerd: a run that calls several of them, as a deployed Worker would. */
describe("built-in toolkits on Workers", () => {
  it("an agent run calls calculator, date/time, files on R2 and a refused private fetch", async () => {
    const user = `tk-${crypto.randomUUID().slice(0, 8)}`;
    const script = await scriptModel(env.MODEL_SERVER_URL, [
      {
        toolCalls: [
          { name: "multiply", arguments: { a: 6, b: 7 } },
          { name: "get_current_time", arguments: { timezone: "Asia/Kolkata" } },
          { name: "save_file", arguments: { contents: "hello", file_name: "notes/a.txt" } },
          { name: "read_url", arguments: { url: "http://169.254.169.254/latest/meta-data/" } },
        ],
      },
      { toolCalls: [{ name: "list_files", arguments: {} }] },
      { text: "done" },
    ]);
    const storage = new R2Storage(env.STORAGE, { bucketName: "agno-edge-storage" });
    const agent = new Agent({
      id: "toolkits",
      model: createModel("openai:gpt-test", { credentials: { openai: { baseURL: script.baseURL, apiKey: "k" } } }),
      tools: [new CalculatorTools(), new DateTimeTools(), new FileTools({ storage }), new WebFetchTools()],
    });
    const out = await agent.run("go", { userId: user });
    expect(out.status).toBe("COMPLETED");
    const byName = Object.fromEntries(out.tools.map((t) => [t.tool_name, t]));
    expect(JSON.parse(byName.multiply!.result!)).toEqual({ operation: "multiplication", result: 42 });
    expect(JSON.parse(byName.get_current_time!.result!).datetime).toMatch(/\+05:30$/);
    expect(byName.save_file!.result).toBe("notes/a.txt");
    expect(byName.read_url!.tool_call_error).toBe(true);
    expect(byName.read_url!.result).toMatch(/private, loopback or internal address/);
    expect(JSON.parse(byName.list_files!.result!)).toEqual(["notes/a.txt"]);
    expect(await storage.head(`files/users/u-${user}/notes/a.txt`)).toMatchObject({ size: 5 });
  });
});
