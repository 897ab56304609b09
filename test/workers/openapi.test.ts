import { expect, it } from "vitest";
import { call, send } from "./worker-client.js";

interface Op {
  security?: unknown[];
  "x-required-scope"?: string;
  "x-authenticated-by"?: string;
  summary?: string;
  parameters?: Array<{ name: string; in: string }>;
}

it("serves /openapi.json and /docs from the route definitions, behind auth", async () => {
  expect((await send("/openapi.json", {}, {}, {})).status).toBe(401);
  expect((await send("/docs", {}, {}, {})).status).toBe(401);
  const { status, body: doc } = await call("/openapi.json");
  expect(status).toBe(200);
  expect(doc.openapi).toBe("3.1.0");
  const ops = Object.entries(doc.paths as Record<string, Record<string, Op>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op })),
  );
  expect(ops.length).toBeGreaterThanOrEqual(25);
  for (const route of [
    "get /sessions",
    "post /agents/{agent_id}/runs",
    "post /agents/{agent_id}/runs/{run_id}/resume",
    "post /databases/all/migrate",
    "get /databases",
    "get /traces/{trace_id}",
    "post /traces/search",
    "get /openapi.json",
    "post /eval-runs",
  ]) {
    expect(ops.map((o) => `${o.method} ${o.path}`)).toContain(route);
  }
  const html = await (await send("/docs")).text();
  expect((await send("/docs")).headers.get("content-security-policy")).toMatch(/default-src 'none'/);
  // Never framed by another site (clickjacking), never sniffed into another type.
  const headers = (await send("/docs")).headers;
  expect(
    headers
      .get("content-security-policy")!
      .split(";")
      .map((d) => d.trim()),
  ).toContain("frame-ancestors 'none'");
  expect(headers.get("x-content-type-options")).toBe("nosniff");
  for (const { path, method, op } of ops) {
    expect(op.summary, `${method} ${path} has a summary`).toBeTruthy();
    expect(html).toContain(path.replace(/&/g, "&#38;"));
    const isPublic = Array.isArray(op.security) && op.security.length === 0;
    expect(isPublic ? undefined : op["x-required-scope"], `${method} ${path}`).toEqual(
      isPublic ? undefined : expect.stringMatching(/^[a-z_]+(:\{[a-z_]+\}|:\{id\})?:[a-z]+/),
    );
    // What the document says is what the runtime does: a protected route refuses a caller
    // without credentials, a public one answers, and every documented route exists.
    const concrete = path.replace(/\{[a-z_]+\}/g, "doc-probe");
    const anonymous = await send(concrete, { method: method.toUpperCase() }, {}, {});
    // A public route that checks its caller itself (a chat platform's webhook) says with what.
    const selfChecked = typeof op["x-authenticated-by"] === "string";
    expect({ route: `${method} ${path}`, status: anonymous.status }).toEqual({
      route: `${method} ${path}`,
      // A public WebSocket route (authenticated by a message once open) tells a plain GET to upgrade;
      // a webhook without its platform's proof is refused as a protected route would be.
      status: isPublic
        ? path.endsWith("/ws")
          ? 426
          : selfChecked
            ? expect.toSatisfy((s: number) => s === 401 || s === 403)
            : 200
        : 401,
    });
    const authed = await (await send(concrete, { method: method.toUpperCase() })).text();
    expect(authed, `${method} ${path} is served`).not.toMatch(/"detail":"no route/);
  }
  expect(
    ["/", "/health", "/info"].every((p) => (doc.paths[p]?.get?.security as unknown[] | undefined)?.length === 0),
  ).toBe(true);
});
