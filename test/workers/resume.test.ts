import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { createModel } from "../../src/models/providers.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { tool } from "../../src/tools/tool.js";
import worker from "../../src/index.js";
import { scriptModel } from "../support/model-script.js";
import { auth, call, envFor, JSON_BODY, parseSse, send, sdkFetch, form, modelEnv } from "./worker-client.js";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

const content = (frames: ReturnType<typeof parseSse>) =>
  frames
    .filter((f) => f.event === "RunContent")
    .map((f) => f.data.content)
    .join("");

describe("re-attaching to a streamed run (POST …/resume)", () => {
  it("numbers every SSE frame and replays a finished run from any position, by body or Last-Event-ID", async () => {
    const { env: e } = await modelEnv([{ text: ALPHABET, chunkSize: 6 }]);
    const original = parseSse(
      await (await send("/agents/assistant/runs", form({ message: "spell", user_id: "resume-u1" }), e)).text(),
    );
    expect(original.map((f) => f.id)).toEqual(original.map((_, i) => i));
    expect(original.at(-1)!.event).toBe("RunCompleted");
    const runId = original[0]!.data.run_id as string;

    const all = parseSse(await (await send(`/agents/assistant/runs/${runId}/resume`, { method: "POST" }, e)).text());
    expect(all).toEqual(original);
    const fromThree = parseSse(
      await (
        await send(
          `/agents/assistant/runs/${runId}/resume`,
          { method: "POST", headers: JSON_BODY, body: JSON.stringify({ last_event_index: 3 }) },
          e,
        )
      ).text(),
    );
    expect(fromThree).toEqual(original.slice(4));
    const byHeader = parseSse(
      await (
        await send(`/agents/assistant/runs/${runId}/resume`, { method: "POST" }, e, { ...auth, "last-event-id": "5" })
      ).text(),
    );
    expect(byHeader).toEqual(original.slice(6));
    const pastTheEnd = await send(
      `/agents/assistant/runs/${runId}/resume`,
      form({ last_event_index: String(original.length - 1) }),
      e,
    );
    expect(pastTheEnd.status).toBe(200);
    expect(await pastTheEnd.text()).toBe("");
  });

  it("re-attaches from a second request while the run is still streaming, and misses nothing", async () => {
    const { env: e } = await modelEnv([{ text: ALPHABET, chunkSize: 2, delayMs: 40 }]);
    const ctx = createExecutionContext();
    const first = await worker.fetch(
      new Request("http://agno.test/agents/assistant/runs", {
        ...form({ message: "spell slowly" }),
        headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
      }) as Request<unknown, IncomingRequestCfProperties>,
      envFor(e),
      ctx,
    );
    const reader = first.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while ((text.match(/event: RunContent/g) ?? []).length < 3) text += (await reader.read()).value ?? "";
    await reader.cancel(); // the connection drops mid-run
    const seen = parseSse(text.slice(0, text.lastIndexOf("\n\n") + 2));
    const runId = seen[0]!.data.run_id as string;
    const lastSeen = seen.at(-1)!.id!;

    // Another request (another isolate, as far as the run is concerned): it reads only the database.
    const rest = parseSse(
      await (
        await send(`/agents/assistant/runs/${runId}/resume`, form({ last_event_index: String(lastSeen) }), e)
      ).text(),
    );
    await waitOnExecutionContext(ctx);
    expect(rest[0]!.id).toBe(lastSeen + 1);
    expect(rest.map((f) => f.id)).toEqual(rest.map((_, i) => lastSeen + 1 + i));
    expect(rest.at(-1)!.event).toBe("RunCompleted");
    expect(content(seen) + content(rest)).toBe(ALPHABET);
    expect((await call(`/agents/assistant/runs/${runId}`, {}, e)).body).toMatchObject({
      status: "COMPLETED",
      content: ALPHABET,
    });
  });

  it("answers 409 for a run that was not streamed, 404 for an unknown one and 422 for a bad position", async () => {
    const { env: e } = await modelEnv([{ text: "plain" }]);
    const json = await call("/agents/assistant/runs", form({ message: "hi", stream: "false" }), e);
    expect(json.status).toBe(200);
    const notStreamed = await call(`/agents/assistant/runs/${json.body.run_id}/resume`, { method: "POST" }, e);
    expect(notStreamed).toMatchObject({
      status: 409,
      body: { error_id: "conflict", detail: expect.stringMatching(/not streamed/) },
    });
    expect((await call("/agents/assistant/runs/no-such-run/resume", { method: "POST" }, e)).status).toBe(404);
    for (const bad of ["abc", "-5", "1.5"]) {
      const res = await call(`/agents/assistant/runs/${json.body.run_id}/resume`, form({ last_event_index: bad }), e);
      expect({ bad, status: res.status, field: res.body.detail }).toEqual({
        bad,
        status: 422,
        field: expect.stringMatching(/last_event_index/),
      });
    }
  });

  it("keeps one log across a pause and its continue: positions go on, a replay from the start has both", async () => {
    const script = await scriptModel(env.MODEL_SERVER_URL, [
      { toolCalls: [{ id: "c1", name: "wipe", arguments: { path: "/tmp" } }] },
      { text: "Wiped." },
    ]);
    const agent = new Agent({
      id: "janitor",
      model: createModel("openai:gpt-test", { credentials: { openai: { baseURL: script.baseURL, apiKey: "k" } } }),
      tools: [
        tool({
          name: "wipe",
          parameters: z.object({ path: z.string() }),
          requiresConfirmation: true,
          execute: () => "ok",
        }),
      ],
    });
    const os = new AgentOS({ agents: [agent], auth: { mode: "none" } });
    const sdk = sdkFetch(os, "resume_in_workerd");
    const fetchOs = async (path: string, init: RequestInit) => parseSse((await sdk(path, init)).text);
    const paused = await fetchOs("/agents/janitor/runs", form({ message: "wipe /tmp" }));
    expect(paused.at(-1)!.event).toBe("RunPaused");
    const runId = paused[0]!.data.run_id as string;
    const tools = (paused.at(-1)!.data.tools as Array<Record<string, unknown>>).map((t) => ({ ...t, confirmed: true }));
    const continued = await fetchOs(`/agents/janitor/runs/${runId}/continue`, form({ tools: JSON.stringify(tools) }));
    expect(continued[0]).toMatchObject({ id: paused.length, event: "RunContinued" });
    expect(continued.at(-1)!.event).toBe("RunCompleted");
    const replay = await fetchOs(`/agents/janitor/runs/${runId}/resume`, { method: "POST" });
    expect(replay).toEqual([...paused, ...continued]);
  });
});
