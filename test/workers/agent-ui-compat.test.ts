/**
 * agno's open-source agent-ui (github.com/agno-agi/agent-ui, src/api/os.ts and src/hooks) pointed
 * at the Worker from its development origin: the requests it sends, in its order, with its
 * headers (a JSON content type even on GETs, a bearer token, multipart runs), each preceded by
 * the preflight a browser sends, and the fields it reads from each answer. Streams are read as
 * agent-ui reads them: every complete JSON object in the body, whatever framing surrounds it.
 */
import { describe, expect, it } from "vitest";
import { auth, codeDefinedOnly, modelEnv, send } from "./worker-client.js";
import type { Env } from "../../src/index.js";

const ORIGIN = "http://localhost:3000";
type Chunk = Record<string, unknown> & { event: string };

/** agent-ui's createHeaders: a JSON content type and the token it was given. */
const uiHeaders = { "content-type": "application/json", ...auth };

/**
 * What a browser does for agent-ui's `fetch`: the preflight (its headers are not all simple), then
 * the request; both must carry the CORS answer for the page to see the response.
 */
async function browserFetch(e: Partial<Env>, path: string, init: RequestInit & { headers: Record<string, string> }) {
  const method = init.method ?? "GET";
  const pre = await send(path, { method: "OPTIONS" }, e, {
    origin: ORIGIN,
    "access-control-request-method": method,
    "access-control-request-headers": Object.keys(init.headers).sort().join(","),
  });
  expect({ path, preflight: pre.status }).toEqual({ path, preflight: 204 });
  expect(pre.headers.get("access-control-allow-origin")).toBe(ORIGIN);
  expect(pre.headers.get("access-control-allow-methods")?.split(",")).toContain(method);
  for (const h of Object.keys(init.headers)) expect(pre.headers.get("access-control-allow-headers")).toContain(h);
  const res = await send(path, init, e, { ...init.headers, origin: ORIGIN });
  expect(res.headers.get("access-control-allow-origin")).toBe(ORIGIN);
  expect(res.headers.get("access-control-allow-credentials")).toBe("true");
  return res;
}

/** agent-ui's parseBuffer: each complete top-level JSON object in the text, in order. */
function agentUiChunks(text: string): Chunk[] {
  const chunks: Chunk[] = [];
  let start = text.indexOf("{");
  while (start !== -1) {
    let depth = 0;
    let inString = false;
    let escaped = false;
    let end = -1;
    for (let i = start; i < text.length; i++) {
      const ch = text[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (ch === "\\") escaped = true;
        else if (ch === '"') inString = false;
      } else if (ch === '"') inString = true;
      else if (ch === "{") depth++;
      else if (ch === "}" && --depth === 0) {
        end = i;
        break;
      }
    }
    if (end === -1) break;
    const parsed = JSON.parse(text.slice(start, end + 1)) as Chunk;
    // agent-ui's isLegacyFormat: an `event` string and no `data` field; the rest it converts.
    expect(typeof parsed.event === "string" && !("data" in parsed)).toBe(true);
    chunks.push(parsed);
    start = text.indexOf("{", end + 1);
  }
  return chunks;
}

/** agent-ui's run: a FormData with message, then stream=true and session_id ("" for a new chat). */
function runForm(message: string, sessionId: string) {
  const form = new FormData();
  form.append("message", message);
  form.append("stream", "true");
  form.append("session_id", sessionId);
  return form;
}

describe("agno's agent-ui against the Worker, from http://localhost:3000", () => {
  it("connects, lists agents and teams with db_id, chats with streaming, lists, opens and deletes sessions", async () => {
    const { env: e } = await modelEnv([
      { toolCalls: [{ name: "roll_dice", arguments: { count: 1, sides: 6 } }] },
      { text: "You rolled a die.", chunkSize: 4 },
      { text: "Again: rolled.", chunkSize: 4 },
      { text: "The desk answers.", chunkSize: 5 },
    ]);

    // initialize(): the status, then the teams and agents.
    expect((await browserFetch(e, "/health", { headers: uiHeaders })).status).toBe(200);
    const teams = (await (await browserFetch(e, "/teams", { headers: uiHeaders })).json()) as Array<
      Record<string, unknown>
    >;
    const agents = (await (await browserFetch(e, "/agents", { headers: uiHeaders })).json()) as Array<
      Record<string, unknown>
    >;
    // What it reads of each: id, name, db_id (it lists sessions only with one), the model.
    const desk = (await codeDefinedOnly(teams as Array<{ id: string }>, e))[0] as Record<string, unknown>;
    expect(desk).toMatchObject({
      id: "writing-desk",
      name: "Writing desk",
      db_id: expect.any(String),
      model: { provider: "openai" },
    });
    const assistant = (await codeDefinedOnly(agents as Array<{ id: string }>, e))[0] as Record<string, unknown>;
    expect(assistant).toMatchObject({
      id: "assistant",
      name: "Assistant",
      db_id: expect.any(String),
      model: { model: "gpt-test" },
    });
    for (const item of [...teams, ...agents]) expect(item.db_id, String(item.id)).toEqual(expect.any(String));
    const dbId = assistant.db_id as string;

    // A new chat: session_id is sent empty.
    const run = await browserFetch(e, "/agents/assistant/runs", {
      method: "POST",
      headers: { ...auth },
      body: runForm("roll a die", ""),
    });
    expect(run.status).toBe(200);
    const chunks = agentUiChunks(await run.text());
    const events = chunks.map((c) => c.event);
    expect(events[0]).toBe("RunStarted");
    expect(events.at(-1)).toBe("RunCompleted");
    const started = chunks[0]!;
    expect(started).toMatchObject({ session_id: expect.any(String), created_at: expect.any(Number) });
    const sessionId = started.session_id as string;
    // Tool calls are matched by tool_call_id (else tool_name and created_at).
    for (const name of ["ToolCallStarted", "ToolCallCompleted"])
      expect(chunks.find((c) => c.event === name)).toMatchObject({
        tool: { tool_call_id: expect.any(String), tool_name: "roll_dice", created_at: expect.any(Number) },
      });
    // RunContent chunks add up to the answer, which RunCompleted carries whole.
    const streamed = chunks
      .filter((c) => c.event === "RunContent" && typeof c.content === "string")
      .map((c) => c.content as string)
      .join("");
    expect(streamed).toBe("You rolled a die.");
    expect(chunks.at(-1)).toMatchObject({ content: "You rolled a die.", created_at: expect.any(Number) });

    // The same chat goes on in its session.
    const again = agentUiChunks(
      await (
        await browserFetch(e, "/agents/assistant/runs", {
          method: "POST",
          headers: { ...auth },
          body: runForm("again", sessionId),
        })
      ).text(),
    );
    expect(again[0]).toMatchObject({ event: "RunStarted", session_id: sessionId });

    // The sidebar: the agent's sessions in its database, then one session's runs.
    const query = new URLSearchParams({ type: "agent", component_id: "assistant", db_id: dbId });
    const listed = await browserFetch(e, `/sessions?${query}`, { headers: uiHeaders });
    expect(listed.status).toBe(200);
    const sessions = ((await listed.json()) as { data: Array<Record<string, unknown>> }).data;
    // agent-ui shows session_name; created_at is agno's SessionSchema datetime (ISO text), which it does not read.
    expect(sessions.find((s) => s.session_id === sessionId)).toMatchObject({
      session_id: sessionId,
      session_name: "roll a die",
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const runsRes = await browserFetch(
      e,
      `/sessions/${sessionId}/runs?${new URLSearchParams({ type: "agent", db_id: dbId })}`,
      { headers: uiHeaders },
    );
    expect(runsRes.status).toBe(200);
    const runs = (await runsRes.json()) as Array<Record<string, unknown>>;
    // useSessionLoader: each run's run_input makes the user's message; content and tools the agent's
    // (created_at is agno's RunSchema datetime, ISO text, which agent-ui only carries along).
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatchObject({
      run_input: "roll a die",
      content: "You rolled a die.",
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(runs[0]!.tools).toEqual([
      expect.objectContaining({ tool_name: "roll_dice", tool_call_id: expect.any(String) }),
    ]);
    expect(runs[1]).toMatchObject({ run_input: "again", content: "Again: rolled." });

    // Team mode: a multipart run to the team, read for its Team* events.
    const teamChunks = agentUiChunks(
      await (
        await browserFetch(e, "/teams/writing-desk/runs", {
          method: "POST",
          headers: { ...auth },
          body: runForm("write", ""),
        })
      ).text(),
    );
    expect(teamChunks[0]).toMatchObject({ event: "TeamRunStarted", session_id: expect.any(String) });
    expect(teamChunks.at(-1)).toMatchObject({ event: "TeamRunCompleted", content: "The desk answers." });
    const teamSessions = await browserFetch(
      e,
      `/sessions?${new URLSearchParams({ type: "team", component_id: "writing-desk", db_id: desk.db_id as string })}`,
      { headers: uiHeaders },
    );
    const teamSessionIds = ((await teamSessions.json()) as { data: Array<{ session_id: string }> }).data.map(
      (s) => s.session_id,
    );
    expect(teamSessionIds).toContain(teamChunks[0]!.session_id);
    const teamRuns = await browserFetch(
      e,
      `/sessions/${teamChunks[0]!.session_id as string}/runs?${new URLSearchParams({ type: "team", db_id: desk.db_id as string })}`,
      { headers: uiHeaders },
    );
    expect(((await teamRuns.json()) as Array<Record<string, unknown>>).at(-1)).toMatchObject({
      run_input: "write",
      content: "The desk answers.",
    });

    // Deleting a session from the sidebar.
    const deleted = await browserFetch(e, `/sessions/${sessionId}?${new URLSearchParams({ db_id: dbId })}`, {
      method: "DELETE",
      headers: uiHeaders,
    });
    expect(deleted.status).toBeLessThan(300);
    const after = await browserFetch(e, `/sessions?${query}`, { headers: uiHeaders });
    expect(
      ((await after.json()) as { data: Array<{ session_id: string }> }).data.map((s) => s.session_id),
    ).not.toContain(sessionId);
  });

  it("without its token, agent-ui is told 401 in a response it can read (the preflight granted nothing)", async () => {
    const res = await browserFetch({}, "/agents", { headers: { "content-type": "application/json" } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ detail: expect.any(String), error_id: "unauthorized" });
    // /health answers anyway: agent-ui's status check.
    expect((await browserFetch({}, "/health", { headers: { "content-type": "application/json" } })).status).toBe(200);
  });
});
