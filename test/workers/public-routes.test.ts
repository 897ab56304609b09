import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AgentOS } from "../../src/os/agent-os.js";
import { defineRoute, handle } from "../../src/os/route.js";

/** An AgentOS with a key, plus a route a user adds (a webhook authenticated by its own signature, say). */
function osWithHooks() {
  const os = new AgentOS({ auth: { mode: "security_key", securityKey: "hook-key" } });
  handle(
    os.app,
    defineRoute({
      method: "post",
      path: "/hooks/{name}",
      tags: ["Hooks"],
      summary: "A webhook that checks its own signature",
      scope: null,
    }),
    (c) => c.json({ hook: c.req.param("name") }),
  );
  handle(
    os.app,
    defineRoute({
      method: "get",
      path: "/hooks/{name}/log",
      tags: ["Hooks"],
      summary: "Protected",
      scope: { resource: "config", action: "read" },
    }),
    (c) => c.json({ log: [] }),
  );
  os.app.get("/plain", (c) => c.json({ plain: true }));
  return async (method: string, path: string, headers: Record<string, string> = {}) => {
    const ctx = createExecutionContext();
    const res = await os.fetch(new Request(`http://os.test${path}`, { method, headers }), { dbs: [] }, ctx);
    await waitOnExecutionContext(ctx);
    return res.status;
  };
}

describe("routes declare their own auth", () => {
  it("a route defined with scope: null answers without credentials; every other route, however added, needs them", async () => {
    const send = osWithHooks();
    expect(await send("POST", "/hooks/slack")).toBe(200);
    expect(await send("GET", "/hooks/slack/log")).toBe(401);
    expect(await send("GET", "/hooks/slack/log", { authorization: "Bearer hook-key" })).toBe(200);
    // Added without defineRoute: nothing declares it public, so it is not.
    expect(await send("GET", "/plain")).toBe(401);
    // The same path with another method is another route: not public.
    expect(await send("GET", "/hooks/slack")).toBe(401);
    expect(await send("GET", "/no/such/route")).toBe(401);
    expect(await send("GET", "/health")).toBe(200);
    expect(await send("GET", "/info")).toBe(200);
    expect(await send("GET", "/")).toBe(200);
    expect(await send("GET", "/config")).toBe(401);
    // OPTIONS is no route of defineRoute: outside a browser's preflight it needs credentials too.
    expect(await send("OPTIONS", "/hooks/slack")).toBe(401);
    expect(await send("OPTIONS", "/health")).toBe(401);
    // A preflight from an allowed origin is answered (204, nothing else), and grants nothing.
    const preflight = { origin: "https://os.agno.com", "access-control-request-method": "GET" };
    expect(await send("OPTIONS", "/hooks/slack/log", preflight)).toBe(204);
    expect(await send("GET", "/hooks/slack/log", { origin: "https://os.agno.com" })).toBe(401);
  });
});
