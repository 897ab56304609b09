/**
 * CORS through the Worker: agno's origins and AGNO_CORS_ORIGINS get Hono's CORS answers (with
 * credentials); other origins get none. A preflight is answered without credentials, but never
 * stands in for them: the request it announces is authenticated as any other.
 */
import { describe, expect, it } from "vitest";
import { readEnvConfig } from "../../src/worker/env-config.js";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { AgentOS } from "../../src/os/agent-os.js";
import { defineAgentOS } from "../../src/worker/define-agent-os.js";
import { auth, send } from "./worker-client.js";

const CONSOLE = "https://console.example.com";
const E = { AGNO_CORS_ORIGINS: ` ${CONSOLE}, http://127.0.0.1:5173 ` };

/** A browser's preflight for `method path` with `headers`, from `origin`: no credentials. */
const preflight = (path: string, origin: string, method = "GET", headers = "authorization,content-type") =>
  send(path, { method: "OPTIONS" }, E, {
    origin,
    "access-control-request-method": method,
    "access-control-request-headers": headers,
  });

describe("CORS", () => {
  it("answers a preflight from agno's origins and the configured ones, without credentials, reflecting the asked headers", async () => {
    for (const origin of [
      "http://localhost:3000",
      "https://os.agno.com",
      "https://app.agno.com",
      CONSOLE,
      "http://127.0.0.1:5173",
    ]) {
      const res = await preflight("/agents/assistant/runs", origin, "POST", "authorization,content-type,x-custom");
      expect({ origin, status: res.status }).toEqual({ origin, status: 204 });
      expect(res.headers.get("access-control-allow-origin")).toBe(origin);
      expect(res.headers.get("access-control-allow-credentials")).toBe("true");
      expect(res.headers.get("access-control-allow-methods")?.split(",")).toEqual(
        expect.arrayContaining(["GET", "POST", "DELETE", "PATCH", "PUT"]),
      );
      expect(res.headers.get("access-control-allow-headers")).toBe("authorization,content-type,x-custom");
      expect(res.headers.get("vary")).toMatch(/Origin/);
      expect(await res.text()).toBe("");
    }
  });

  it("gives another origin no CORS headers, and a preflight from it nothing but a 401", async () => {
    const res = await preflight("/agents", "https://evil.example");
    expect(res.status).toBe(401);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    const get = await send("/agents", {}, E, { ...auth, origin: "https://evil.example" });
    expect(get.status).toBe(200);
    expect(get.headers.get("access-control-allow-origin")).toBeNull();
    // Without an Origin (not a browser), nothing either.
    expect((await send("/agents", {}, E)).headers.get("access-control-allow-origin")).toBeNull();
    // The configured origins are this deployment's: another deployment's env does not allow them.
    const elsewhere = await send("/health", {}, {}, { origin: CONSOLE });
    expect(elsewhere.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("a preflight never stands in for credentials: the request after it is a 401 the page can read", async () => {
    const origin = "http://localhost:3000";
    expect((await preflight("/agents", origin)).status).toBe(204);
    const anonymous = await send("/agents", {}, E, { origin });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("access-control-allow-origin")).toBe(origin);
    expect(anonymous.headers.get("access-control-allow-credentials")).toBe("true");
    expect(await anonymous.json()).toMatchObject({ error_id: "unauthorized" });
    const signedIn = await send("/agents", {}, E, { ...auth, origin });
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get("access-control-allow-origin")).toBe(origin);
    expect(signedIn.headers.get("vary")).toMatch(/Origin/);
  });

  it("answers a preflight for an unknown path as for any other (nothing about routes), and a plain OPTIONS needs credentials", async () => {
    const known = await preflight("/agents", CONSOLE);
    const unknown = await preflight("/no/such/route", CONSOLE);
    expect(unknown.status).toBe(204);
    expect([...unknown.headers].sort()).toEqual([...known.headers].sort());
    // An OPTIONS that is not a preflight (no Access-Control-Request-Method) is an ordinary request.
    const plain = await send("/agents", { method: "OPTIONS" }, E, { origin: CONSOLE });
    expect(plain.status).toBe(401);
    const unknownPlain = await send("/no/such/route", { method: "OPTIONS" }, E, { origin: CONSOLE });
    expect(unknownPlain.status).toBe(401);
  });

  it("exposes the headers a page needs (Retry-After on a 429, a download's name) on the actual request", async () => {
    const res = await send("/health", {}, E, { origin: CONSOLE });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-expose-headers")?.split(",")).toEqual([
      "Retry-After",
      "Content-Disposition",
    ]);
  });
});

describe("AGNO_CORS_ORIGINS and corsOrigins", () => {
  it("takes comma-separated origins and refuses *, paths and non-origins, naming the variable", () => {
    expect(readEnvConfig({ AGNO_CORS_ORIGINS: "https://a.example, http://localhost:8080," })).toMatchObject({
      ok: true,
      config: { corsOrigins: ["https://a.example", "http://localhost:8080"] },
    });
    expect(readEnvConfig({})).toMatchObject({ ok: true, config: { corsOrigins: [] } });
    for (const bad of [
      "*",
      "https://a.example/",
      "https://a.example/app",
      "a.example",
      "ftp://a.example",
      "https://A.example",
    ]) {
      const read = readEnvConfig({ AGNO_CORS_ORIGINS: `https://ok.example,${bad}` });
      expect({ bad, ok: read.ok }).toEqual({ bad, ok: false });
      if (!read.ok) expect(read.error.message).toMatch(/AGNO_CORS_ORIGINS/);
    }
    const star = readEnvConfig({ AGNO_CORS_ORIGINS: "*" });
    expect(!star.ok && star.error.message).toMatch(/AGNO_CORS_ORIGINS may not be \*/);
  });

  it("a bad AGNO_CORS_ORIGINS closes the deployment as any bad setting does", async () => {
    const res = await send("/agents", {}, { AGNO_CORS_ORIGINS: "*" });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ detail: expect.stringContaining("AGNO_CORS_ORIGINS") });
  });

  it("defineAgentOS's corsOrigins (a value or a function of env) add to AGNO_CORS_ORIGINS", async () => {
    const os = defineAgentOS<{ AGNO_CORS_ORIGINS?: string; MINE?: string }>({
      corsOrigins: (env) => [env.MINE!],
    });
    const env = { AGNO_CORS_ORIGINS: "https://from-env.example", MINE: "https://from-code.example" };
    const allowed = async (origin: string) => {
      const ctx = createExecutionContext();
      const res = await os.fetch(new Request("http://os.test/health", { headers: { origin } }), env, ctx);
      await waitOnExecutionContext(ctx);
      return res.headers.get("access-control-allow-origin");
    };
    expect(await allowed("https://from-env.example")).toBe("https://from-env.example");
    expect(await allowed("https://from-code.example")).toBe("https://from-code.example");
    expect(await allowed("https://os.agno.com")).toBe("https://os.agno.com");
    expect(await allowed("https://other.example")).toBeNull();
  });

  it("AgentOS refuses a corsOrigins entry that is not an origin", () => {
    expect(() => new AgentOS({ corsOrigins: ["*"] })).toThrow(/corsOrigins may not be \*/);
    expect(() => new AgentOS({ corsOrigins: ["https://ok.example/path"] })).toThrow(/corsOrigins has/);
    const os = new AgentOS({ corsOrigins: ["https://ok.example"] });
    expect(os.app).toBeDefined();
  });
});
