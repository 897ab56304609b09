import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { startDev } from "../support/dev-server.js";
import { scriptModel } from "../support/model-script.js";

const JSON_BODY = { "content-type": "application/json" };

/**
 * A user's own Worker (test/workers/fixtures/own-worker.ts: an agent of its own and the ten lines
 * of `defineAgentOS`) under a real `wrangler dev` of its own wrangler.toml: wrangler takes the
 * Durable Object classes exported as const bindings, the HTTP app serves the user's agent, and the
 * JobQueue object the factory made runs that agent's background job.
 */
describe("a Worker defined with defineAgentOS", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "agno-own-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("serves its own agent over SSE, and its queue object runs that agent's background job, tool call included", async () => {
    const script = await scriptModel(inject("modelServerUrl"), [
      { text: "Streaming the weather." },
      { toolCalls: [{ name: "get_forecast", arguments: { city: "Lyon" } }] },
      { text: "Sunny in Lyon tomorrow." },
    ]);
    const dev = await startDev({ AGNO_DEV_DATA: dataDir, OPENAI_BASE_URL: script.baseURL }, [
      "--config",
      "test/workers/fixtures/own-worker-wrangler.toml",
    ]);
    try {
      expect(await (await fetch(`${dev.url}/info`)).json()).toMatchObject({ name: "weather desk" });
      const agents = (await (await fetch(`${dev.url}/agents`)).json()) as Array<{ id: string }>;
      expect(agents.map((a) => a.id)).toEqual(["weather"]);
      expect((await fetch(`${dev.url}/agents/assistant`)).status).toBe(404);

      const sse = await (
        await fetch(`${dev.url}/agents/weather/runs`, {
          method: "POST",
          headers: JSON_BODY,
          body: JSON.stringify({ message: "weather?" }),
        })
      ).text();
      expect(sse).toMatch(/event: RunCompleted/);
      expect(sse).toContain("Streaming the weather.");

      const accepted = await fetch(`${dev.url}/agents/weather/runs`, {
        method: "POST",
        headers: JSON_BODY,
        body: JSON.stringify({ message: "Lyon tomorrow?", background: true, stream: false }),
      });
      expect(accepted.status).toBe(202);
      const { run_id } = (await accepted.json()) as { run_id: string };
      const deadline = Date.now() + 30_000;
      let run: { status?: string; content?: string; tools?: Array<{ tool_name: string; result: string }> } = {};
      while (Date.now() < deadline && run.status !== "COMPLETED") {
        await new Promise((r) => setTimeout(r, 250));
        run = (await (await fetch(`${dev.url}/agents/weather/runs/${run_id}`)).json()) as typeof run;
      }
      expect(run).toMatchObject({ status: "COMPLETED", content: "Sunny in Lyon tomorrow." });
      expect(run.tools).toEqual([
        expect.objectContaining({ tool_name: "get_forecast", result: "sunny in Lyon, 24 degrees" }),
      ]);
      // agno's job id is its run's id: the run id names the job.
      expect(await (await fetch(`${dev.url}/queue/jobs/${run_id}`)).json()).toMatchObject({
        id: run_id,
        status: "completed",
        component_id: "weather",
      });
      expect(await script.requests()).toHaveLength(3);
    } finally {
      expect(await dev.stop()).toBe(0);
    }
  });
});
