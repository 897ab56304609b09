import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpAgent, type BaseEvent } from "@ag-ui/client";
import { describe, expect, inject, it } from "vitest";
import { startDev, type DevServer } from "../support/dev-server.js";
import { scriptModel } from "../support/model-script.js";

/**
 * AG-UI as a user reaches it: `npm run dev` (wrangler dev over the example app and its embedded
 * Postgres) serves the assistant at `POST /agui`, and AG-UI's own client, over real HTTP, runs it
 * behind the bearer key, has it pause on a frontend tool, and continues it with the tool's result.
 */
describe("AG-UI through npm run dev", () => {
  it("streams a run to @ag-ui/client, pauses on a frontend tool and continues with its result", async () => {
    const script = await scriptModel(inject("modelServerUrl"), [
      { toolCalls: [{ id: "call_dev_bg", name: "change_background", arguments: { color: "teal" } }] },
      { text: "The background is teal." },
    ]);
    const dataDir = mkdtempSync(join(tmpdir(), "agno-agui-dev-"));
    let dev: DevServer | undefined;
    try {
      dev = await startDev({
        AGNO_DEV_DATA: dataDir,
        AGNO_DEV_CRON: "off",
        OS_SECURITY_KEY: "agui-secret",
        MODEL: "openai:gpt-test",
        OPENAI_BASE_URL: script.baseURL,
        OPENAI_API_KEY: "sk-local",
      });
      const url = dev.url;
      expect(await (await fetch(`${url}/status`)).json()).toEqual({ status: "available" });
      expect((await fetch(`${url}/agui`, { method: "POST", body: "{}" })).status).toBe(401);

      const agent = new HttpAgent({ url: `${url}/agui`, headers: { authorization: "Bearer agui-secret" } });
      const events: BaseEvent[] = [];
      agent.subscribe({ onEvent: ({ event }) => void events.push(event) });
      const tools = [
        {
          name: "change_background",
          description: "Changes the page's background",
          parameters: { type: "object", properties: { color: { type: "string" } } },
        },
      ];
      agent.addMessage({ id: "u1", role: "user", content: "Make it teal" });
      await agent.runAgent({ tools });
      expect(events.find((e) => e.type === "TOOL_CALL_START")).toMatchObject({ toolCallName: "change_background" });
      expect(events.at(-1)?.type).toBe("RUN_FINISHED");

      agent.addMessage({ id: "t1", role: "tool", toolCallId: "call_dev_bg", content: "done" });
      await agent.runAgent({ tools });
      expect(agent.messages.at(-1)?.content).toBe("The background is teal.");

      const runs = (await (
        await fetch(`${url}/sessions/${agent.threadId}/runs?type=agent`, {
          headers: { authorization: "Bearer agui-secret" },
        })
      ).json()) as Array<{ status: string }>;
      expect(runs.map((r) => r.status)).toEqual(["COMPLETED"]);
    } finally {
      await dev?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);
});
