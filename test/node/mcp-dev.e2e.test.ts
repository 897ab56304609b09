import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { startDev } from "../support/dev-server.js";
import { scriptModel } from "../support/model-script.js";

const textOf = (result: object) =>
  (((result as { content?: unknown }).content ?? []) as Array<{ type: string; text?: string }>)
    .map((c) => c.text ?? "")
    .join("");

/** `npm run dev` serves `/mcp`: the official v2 client lists and calls every built-in tool over real HTTP. */
describe("npm run dev serves the MCP server", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "agno-mcp-dev-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("lists agno's eight tools and calls each: runs streamed with progress, a pause continued, sessions read", async () => {
    const script = await scriptModel(inject("modelServerUrl"), [
      { toolCalls: [{ name: "get_current_time", arguments: {} }] },
      { text: "It is noon." },
      { toolCalls: [{ name: "save_note", arguments: { note: "buy milk" } }] },
      { text: "Saved." },
      { text: "A short piece on tea." },
      { text: "Research on tea." },
    ]);
    const dev = await startDev({
      AGNO_DEV_DATA: dataDir,
      MODEL: "openai:gpt-test",
      OPENAI_BASE_URL: script.baseURL,
      OPENAI_API_KEY: "sk-local",
    });
    const client = new Client({ name: "mcp-e2e", version: "1.0.0" });
    try {
      expect(await (await fetch(`${dev.url}/info`)).json()).toMatchObject({ mcp: { enabled: true, path: "/mcp" } });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${dev.url}/mcp`)));
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual([
        "get_agentos_config",
        "run_agent",
        "run_team",
        "run_workflow",
        "continue_run",
        "cancel_run",
        "get_sessions",
        "get_session_runs",
      ]);

      const config = await client.callTool({ name: "get_agentos_config", arguments: {} });
      expect(config.structuredContent).toMatchObject({ os_id: "agno-edge", agents: [{ id: "assistant" }] });

      const progress: string[] = [];
      const ran = await client.callTool(
        { name: "run_agent", arguments: { agent_id: "assistant", message: "What time is it?" } },
        { onprogress: (p) => void progress.push(p.message ?? "") },
      );
      expect(textOf(ran)).toBe("It is noon.");
      expect(progress).toEqual([
        "Agent assistant started",
        "Tool call started: get_current_time",
        "Tool call completed: get_current_time",
      ]);
      const { session_id } = ran.structuredContent as { session_id: string };

      const paused = await client.callTool({
        name: "run_agent",
        arguments: { agent_id: "assistant", message: "Note: buy milk", session_id },
      });
      const pausedRun = paused.structuredContent as { run_id: string; requirements: Array<Record<string, unknown>> };
      expect(paused.structuredContent).toMatchObject({ status: "PAUSED" });
      const continued = await client.callTool({
        name: "continue_run",
        arguments: {
          agent_id: "assistant",
          run_id: pausedRun.run_id,
          session_id,
          requirements: pausedRun.requirements.map((r) => ({ ...r, confirmed: true })),
        },
      });
      expect(textOf(continued)).toBe("Saved.");

      const team = await client.callTool({
        name: "run_team",
        arguments: { team_id: "writing-desk", message: "Tea, briefly" },
      });
      expect(textOf(team)).toBe("A short piece on tea.");

      const flow = await client.callTool({
        name: "run_workflow",
        arguments: { workflow_id: "blog-post", message: "Tea" },
      });
      expect(flow.structuredContent).toMatchObject({ status: "PAUSED" });
      const flowRun = flow.structuredContent as { run_id: string; session_id: string };
      const cancelled = await client.callTool({
        name: "cancel_run",
        arguments: { workflow_id: "blog-post", run_id: flowRun.run_id, session_id: flowRun.session_id },
      });
      expect(cancelled.isError, textOf(cancelled)).toBeFalsy();
      expect(cancelled.structuredContent).toMatchObject({ run_id: flowRun.run_id });

      const sessions = await client.callTool({ name: "get_sessions", arguments: { session_type: "agent" } });
      expect(
        (sessions.structuredContent as { data: Array<{ session_id: string }> }).data.map((s) => s.session_id),
      ).toContain(session_id);
      const history = await client.callTool({ name: "get_session_runs", arguments: { session_id } });
      expect((history.structuredContent as { runs: Array<{ content?: unknown }> }).runs.map((r) => r.content)).toEqual([
        "It is noon.",
        "Saved.",
      ]);

      // A page on another origin is refused before any tool runs (DNS-rebinding protection).
      const rebound = await fetch(`${dev.url}/mcp`, {
        method: "POST",
        headers: {
          origin: "http://attacker.example",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(rebound.status).toBe(403);
      expect(await rebound.json()).toMatchObject({ error_id: "forbidden" });
    } finally {
      await client.close().catch(() => undefined);
      await dev.stop();
    }
  }, 240_000);
});
