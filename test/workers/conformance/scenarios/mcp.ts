import { expect, it } from "vitest";
import { conformingCall } from "../check.js";

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** `/mcp`: MCP's own wire (JSON-RPC), answered and refused within what the route declares. */
export function mcpScenarios(): void {
  it("POST /mcp answers a JSON-RPC request; GET and DELETE are 405 with agno's error body", async () => {
    const ping = await conformingCall("/mcp", {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(ping.status).toBe(200);
    expect(ping.text).toContain('"jsonrpc":"2.0"');
    const list = await conformingCall("/mcp", {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(list.text).toContain("run_agent");
    for (const method of ["GET", "DELETE"]) {
      const refused = await conformingCall("/mcp", { method });
      expect(refused.status).toBe(405);
      expect(refused.body).toMatchObject({ error_id: "method_not_allowed" });
    }
  });
}
