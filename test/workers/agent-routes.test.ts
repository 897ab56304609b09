import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { createModel } from "../../src/models/providers.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { tool } from "../../src/tools/tool.js";
import { scriptModel } from "../support/model-script.js";
import worker from "../../src/index.js";
import {
  auth,
  call,
  codeDefinedOnly,
  envFor,
  parseSse,
  send,
  JSON_BODY,
  sdkFetch,
  form,
  modelEnv,
} from "./worker-client.js";

describe("agent routes of the Worker", () => {
  it("lists the example agent with its model, in /agents and /config", async () => {
    const { env: e } = await modelEnv([]);
    const agents = await call("/agents", {}, e);
    // agno's AgentResponse: unset features are absent, each block holds what differs from agno's defaults.
    const tool = (name: string, requiresConfirmation = false) => ({
      name,
      description: expect.any(String),
      parameters: expect.objectContaining({ type: "object" }),
      requires_confirmation: requiresConfirmation,
      external_execution: false,
    });
    const assistant = {
      id: "assistant",
      name: "Assistant",
      description: expect.any(String),
      db_id: "default",
      is_factory: false,
      is_component: false,
      model: { model: "gpt-test", provider: "openai" },
      tools: {
        tools: [
          tool("get_current_time"),
          tool("roll_dice"),
          tool("save_note", true),
          // A person fills in `when` (user input): agno's to_dict() has no field for it.
          tool("set_reminder"),
          // An approver decides (agno's approval_type "required"), through /approvals.
          { ...tool("forget_notes", true), approval_type: "required" },
        ],
      },
      sessions: { session_table: "agno_sessions", add_history_to_context: true },
      reasoning: { reasoning: false },
      system_message: { description: expect.any(String), instructions: expect.arrayContaining(["Answer briefly."]) },
    };
    expect(await codeDefinedOnly(agents.body, e)).toEqual([assistant]);
    expect((await call("/agents/assistant", {}, e)).body).toEqual(assistant);
    const config = (await call("/config", {}, e)).body;
    expect(await codeDefinedOnly(config.agents, e)).toMatchObject([
      { id: "assistant", model: { id: "gpt-test", provider: "openai" } },
    ]);
    expect(config.available_models).toContainEqual({ id: "gpt-test", provider: "openai" });
  });

  it("streams a run as agno's SSE from a form post (stream defaults to true), tools included", async () => {
    const { env: e, script } = await modelEnv([
      { toolCalls: [{ name: "roll_dice", arguments: { count: 2, sides: 6 } }] },
      { text: "You rolled two dice.", chunkSize: 5 },
    ]);
    const res = await send(
      "/agents/assistant/runs",
      form({
        message: "roll 2 dice",
        user_id: "ann-routes",
        metadata: '{"source":"form"}',
        dependencies: '{"locale":"fr"}',
      }),
      e,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
    const frames = parseSse(await res.text());
    for (const f of frames) expect(f.data.event).toBe(f.event);
    const names = frames.map((f) => f.event);
    expect(names[0]).toBe("RunStarted");
    expect(names.at(-1)).toBe("RunCompleted");
    expect(names).toEqual(expect.arrayContaining(["ToolCallStarted", "ToolCallCompleted", "RunContent"]));
    expect(JSON.stringify(frames)).not.toMatch(/:null/);
    const dice = JSON.parse(
      (frames.find((f) => f.event === "ToolCallCompleted")!.data.tool as { result: string }).result,
    ) as number[];
    expect(dice).toHaveLength(2);
    expect(await script.requests()).toHaveLength(2);
    const runId = frames[0]!.data.run_id as string;
    const stored = await call(`/agents/assistant/runs/${runId}`, {}, e);
    expect(stored.body).toMatchObject({
      run_id: runId,
      status: "COMPLETED",
      content: "You rolled two dice.",
      user_id: "ann-routes",
      metadata: { source: "form" },
    });
    const sessionRuns = await call(`/sessions/${stored.body.session_id}/runs`, {}, e);
    expect(sessionRuns.body.map((r: { run_id: string }) => r.run_id)).toEqual([runId]);
  });

  it("answers RunOutput JSON with stream=false, and continues the session's history", async () => {
    const { env: e, script } = await modelEnv([{ text: "Hi Bo." }, { text: "You are Bo." }]);
    const first = await call("/agents/assistant/runs", form({ message: "I am Bo", stream: "false" }), e);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      status: "COMPLETED",
      content: "Hi Bo.",
      content_type: "str",
      input: { input_content: "I am Bo" },
      metrics: { input_tokens: 10 },
    });
    const second = await call(
      "/agents/assistant/runs",
      {
        method: "POST",
        headers: JSON_BODY,
        body: JSON.stringify({ message: "Who am I?", stream: false, session_id: first.body.session_id }),
      },
      e,
    );
    expect(second.body.content).toBe("You are Bo.");
    const sent = (await script.requests())[1]!.body.messages as Array<{ content: string }>;
    expect(sent.map((m) => m.content)).toContain("Hi Bo.");
  });

  it("validates a call's arguments before asking for a confirmation: invalid ones are a tool error the model reads, and the run never pauses", async () => {
    const { env: e, script } = await modelEnv([
      // save_note needs confirmation and a non-empty note of at most 2,000 characters.
      {
        toolCalls: [
          { id: "call_bad", name: "save_note", arguments: { note: "" } },
          { id: "call_worse", name: "save_note", arguments: { text: "wrong field" } },
        ],
      },
      { text: "I could not save that note." },
      { toolCalls: [{ id: "call_ok", name: "save_note", arguments: { note: "buy milk" } }] },
    ]);
    const first = await call(
      "/agents/assistant/runs",
      { method: "POST", headers: JSON_BODY, body: JSON.stringify({ message: "Remember nothing", stream: false }) },
      e,
    );
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: "COMPLETED", content: "I could not save that note." });
    expect(first.body.requirements ?? []).toEqual([]);
    const tools = first.body.tools as Array<{
      tool_call_id: string;
      tool_call_error?: boolean;
      result?: string;
      requires_confirmation?: boolean;
    }>;
    expect(tools.map((t) => [t.tool_call_id, t.tool_call_error, t.requires_confirmation ?? false])).toEqual([
      ["call_bad", true, false],
      ["call_worse", true, false],
    ]);
    expect(tools[0]!.result).toMatch(/^Error: invalid arguments for save_note: .*note/s);
    // The model read both errors in its next request.
    const sent = (await script.requests())[1]!.body.messages as Array<{
      role: string;
      content: string;
      tool_call_id?: string;
    }>;
    expect(
      sent
        .filter((m) => m.role === "tool")
        .map((m) => [m.tool_call_id, m.content.startsWith("Error: invalid arguments for save_note")]),
    ).toEqual([
      ["call_bad", true],
      ["call_worse", true],
    ]);
    // Control: valid arguments still pause for the confirmation, over SSE.
    const second = parseSse(
      await (
        await send(
          "/agents/assistant/runs",
          {
            method: "POST",
            headers: JSON_BODY,
            body: JSON.stringify({ message: "Remember milk", session_id: first.body.session_id }),
          },
          e,
        )
      ).text(),
    );
    expect(second.at(-1)).toMatchObject({
      event: "RunPaused",
      data: { tools: [{ tool_call_id: "call_ok", requires_confirmation: true }] },
    });
  });

  it("answers an error that says how to configure a model when none is", async () => {
    const noModel = { MODEL: undefined, OPENAI_BASE_URL: undefined, OPENAI_API_KEY: undefined };
    const json = await call("/agents/assistant/runs", form({ message: "hi", stream: "false" }), noModel);
    expect(json.body).toMatchObject({
      status: "ERROR",
      error: { type: "NotConfiguredError", message: expect.stringMatching(/MODEL=provider:model-id/) },
    });
    const frames = parseSse(await (await send("/agents/assistant/runs", form({ message: "hi" }), noModel)).text());
    expect(frames.at(-1)).toMatchObject({ event: "RunError", data: { error_type: "NotConfiguredError" } });
  });

  it("answers bad run requests with a 4xx", async () => {
    const { env: e } = await modelEnv([]);
    const cases: Array<[string, RequestInit, number, RegExp]> = [
      ["/agents/nobody/runs", form({ message: "hi" }), 404, /nobody/],
      ["/agents/assistant/runs", form({ stream: "false" }), 422, /message/],
      ["/agents/assistant/runs", form({ message: "hi", stream: "maybe" }), 422, /stream/],
      ["/agents/assistant/runs", form({ message: "hi", session_state: "{oops" }), 422, /session_state/],
      ["/agents/assistant/runs", form({ message: "hi", metadata: "[1]" }), 422, /metadata/],
      ["/agents/assistant/runs", form({ message: "hi", dependencies: "nope" }), 422, /dependencies/],
      ["/agents/assistant/runs", { method: "POST", headers: JSON_BODY, body: "[1,2]" }, 422, /body: .*expected object/],
      [
        "/agents/assistant/runs",
        { method: "POST", body: JSON.stringify({ message: "hi" }) },
        415,
        /content-type text\/plain/,
      ],
      ["/agents/assistant/runs/nope", {}, 404, /nope/],
      ["/agents/assistant/runs/nope/continue", form({ tools: "[]" }), 404, /nope/],
      ["/agents/assistant/runs/nope/continue", form({}), 404, /nope/],
      ["/agents/assistant/runs/nope/continue", form({ continue_from: "middle" }), 422, /continue_from/],
      ["/agents/assistant/runs/nope/continue", form({ fork: "maybe" }), 422, /fork/],
      ["/agents/assistant/runs/nope/continue", form({ tools: "{oops" }), 422, /tools/],
      ["/agents/assistant/runs/nope/cancel", { method: "POST" }, 404, /nope/],
    ];
    for (const [path, init, status, detail] of cases) {
      const res = await call(path, init, e);
      expect({ path, status: res.status, detail: res.body.detail }).toEqual({
        path,
        status,
        detail: expect.stringMatching(detail),
      });
    }
    // Without the queue binding a background run is refused, and nothing is stored.
    const noQueue = await call(
      "/agents/assistant/runs",
      form({ message: "hi", background: "true", session_id: "never-queued" }),
      { ...e, JOB_QUEUE: undefined },
    );
    expect(noQueue).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/queue/) } });
    expect((await call("/sessions/never-queued", {}, e)).status).toBe(404);
  });

  it("takes files as agno's multipart uploads and media as JSON, hands them to the model and stores them", async () => {
    const { env: e, script } = await modelEnv([{ text: "A tiny picture and a note." }, { text: "Seen." }]);
    // The 8-byte PNG signature and an IHDR chunk are enough for a provider-side type check here.
    const png = Uint8Array.from(
      atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="),
      (ch) => ch.charCodeAt(0),
    );
    const multipart = new FormData();
    multipart.set("message", "What are these?");
    multipart.set("stream", "false");
    multipart.append("files", new File([png], "pixel.png", { type: "image/png" }));
    multipart.append(
      "files",
      new File(["%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"], "note.pdf", { type: "application/pdf" }),
    );
    const res = await call("/agents/assistant/runs", { method: "POST", body: multipart }, e);
    expect(res).toMatchObject({ status: 200, body: { status: "COMPLETED" } });
    expect(res.body.input).toMatchObject({
      input_content: "What are these?",
      // The Worker's R2 bucket holds the bytes; the run keeps references.
      images: [
        {
          mime_type: "image/png",
          media_reference: expect.objectContaining({ storage_backend: "r2", size: png.length }),
        },
      ],
      files: [{ mime_type: "application/pdf", media_reference: expect.objectContaining({ filename: "note.pdf" }) }],
    });
    expect(JSON.stringify(res.body.input)).not.toContain(btoa(String.fromCharCode(...png)));
    const parts = ((await script.requests())[0]!.body.messages as Array<{ content: unknown }>).at(-1)!.content as Array<
      Record<string, unknown>
    >;
    expect(parts.map((p) => p.type)).toEqual(["text", "image_url", "file"]);

    const json = await call(
      "/agents/assistant/runs",
      {
        method: "POST",
        headers: JSON_BODY,
        body: JSON.stringify({
          message: "And this?",
          stream: false,
          media: [{ mime_type: "image/png", data: btoa(String.fromCharCode(...png)) }],
        }),
      },
      e,
    );
    expect(json.body.input.images).toHaveLength(1);

    const bad: Array<[RequestInit, RegExp]> = [
      [
        {
          method: "POST",
          headers: JSON_BODY,
          body: JSON.stringify({ message: "x", media: [{ mime_type: "application/x-msdownload", data: "AAAA" }] }),
        },
        /media/,
      ],
      [
        {
          method: "POST",
          headers: JSON_BODY,
          body: JSON.stringify({ message: "x", media: [{ mime_type: "image/png", data: "not base64!" }] }),
        },
        /media\[0\]\.data.*base64/,
      ],
      [
        {
          method: "POST",
          headers: JSON_BODY,
          body: JSON.stringify({ message: "x", media: [{ mime_type: "image/png" }] }),
        },
        /media/,
      ],
    ];
    for (const [init, detail] of bad) {
      const answer = await call("/agents/assistant/runs", init, e);
      expect({ status: answer.status, detail: answer.body.detail }).toEqual({
        status: 422,
        detail: expect.stringMatching(detail),
      });
    }
    expect(await script.requests()).toHaveLength(2); // refused media never reached the model
  });

  it("cancels a streaming run from a second request", async () => {
    const { env: e, script } = await modelEnv([{ hang: true }]);
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request("http://agno.test/agents/assistant/runs", {
        ...form({ message: "long" }),
        headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
      }) as Request<unknown, IncomingRequestCfProperties>,
      envFor(e),
      ctx,
    );
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("ModelRequestStarted")) text += (await reader.read()).value ?? "";
    const runId = parseSse(text.slice(0, text.indexOf("\n\n") + 2))[0]!.data.run_id as string;
    const cancel = await call(`/agents/assistant/runs/${runId}/cancel`, { method: "POST" }, e);
    expect(cancel).toMatchObject({ status: 200, body: { run_id: runId, cancelled: true } });
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += chunk.value;
    await waitOnExecutionContext(ctx);
    expect(parseSse(text).at(-1)!.event).toBe("RunCancelled");
    expect((await call(`/agents/assistant/runs/${runId}`, {}, e)).body.status).toBe("CANCELLED");
    expect((await script.requests())[0]!.disconnected).toBe(true);
  });
});

describe("continuing a run along its timeline (agno's /continue without requirements)", () => {
  const json = (body: Record<string, unknown>) => ({ method: "POST", headers: JSON_BODY, body: JSON.stringify(body) });
  const texts = (request: { body: Record<string, unknown> }) =>
    (request.body.messages as Array<{ content?: unknown }>).map((m) => String(m.content ?? ""));

  it("a failed run goes on in place; a regenerated run's original leaves the session's history", async () => {
    const { env: e, script } = await modelEnv([
      { error: { status: 400, message: "the provider refused" } },
      { text: "Recovered answer." },
      { text: "Original answer." },
      { text: "Regenerated answer." },
      { text: "Next answer." },
    ]);
    const session = `timeline-${Date.now().toString(36)}`;
    const failed = await call(
      "/agents/assistant/runs",
      json({ message: "try once", stream: false, session_id: session }),
      e,
    );
    expect(failed.body).toMatchObject({ status: "ERROR", error: expect.any(Object) });
    const recovered = await call(`/agents/assistant/runs/${failed.body.run_id}/continue`, json({ stream: false }), e);
    expect(recovered.body).toMatchObject({
      run_id: failed.body.run_id,
      status: "COMPLETED",
      content: "Recovered answer.",
    });
    expect(recovered.body.error).toBeUndefined();
    expect(recovered.body.forked_from_run_id).toBeUndefined();

    const original = await call(
      "/agents/assistant/runs",
      json({ message: "say it", stream: false, session_id: session }),
      e,
    );
    const regenerated = await call(
      `/agents/assistant/runs/${original.body.run_id}/continue`,
      json({ regenerate: true, additional_instructions: "shorter please", stream: false }),
      e,
    );
    expect(regenerated.body).toMatchObject({
      status: "COMPLETED",
      content: "Regenerated answer.",
      regenerated_from: original.body.run_id,
      forked_from_run_id: original.body.run_id,
    });
    // The regeneration asked with the original question and the added instructions, without the original answer.
    const asked = texts((await script.requests())[3]!);
    expect(asked).toEqual(expect.arrayContaining(["say it", "shorter please"]));
    expect(asked).not.toContain("Original answer.");
    expect((await call(`/agents/assistant/runs/${original.body.run_id}`, {}, e)).body.status).toBe("REGENERATED");
    // The next run's history holds the regenerated answer, not the replaced one.
    await call("/agents/assistant/runs", json({ message: "and next?", stream: false, session_id: session }), e);
    const history = texts((await script.requests())[4]!);
    expect(history).toContain("Regenerated answer.");
    expect(history).not.toContain("Original answer.");
    expect(history).toContain("Recovered answer.");
  });

  it("refuses what agno refuses: conflicting fields (400), a cancelled run (409)", async () => {
    const { env: e } = await modelEnv([
      { text: "Done." },
      { toolCalls: [{ id: "n1", name: "save_note", arguments: { note: "x" } }] },
    ]);
    const done = await call("/agents/assistant/runs", json({ message: "hi", stream: false }), e);
    const runId = done.body.run_id as string;
    for (const [body, detail] of [
      [{ regenerate: true, fork: true }, /fork/],
      [{ replace_original: false }, /regenerate/],
      [{ regenerate: true, input: "a", additional_instructions: "b" }, /additional_instructions/],
      [{ continue_from: 99 }, /continue_from/],
    ] as const) {
      const res = await call(`/agents/assistant/runs/${runId}/continue`, json({ ...body, stream: false }), e);
      expect({ status: res.status, detail: res.body.detail }).toEqual({
        status: 400,
        detail: expect.stringMatching(detail),
      });
    }
    const paused = await call("/agents/assistant/runs", json({ message: "note x", stream: false }), e);
    expect(paused.body.status).toBe("PAUSED");
    expect(
      (await call(`/agents/assistant/runs/${paused.body.run_id}/cancel`, { method: "POST" }, e)).body.cancelled,
    ).toBe(true);
    const cancelled = await call(`/agents/assistant/runs/${paused.body.run_id}/continue`, json({ stream: false }), e);
    expect(cancelled).toMatchObject({ status: 409, body: { detail: expect.stringMatching(/CANCELLED/) } });
  });
});

/** The SDK path inside workerd: an AgentOS built in code, a human-in-the-loop tool, continue over HTTP. */
describe("AgentOS built with the SDK, in workerd", () => {
  it("pauses for confirmation and continues with agno's tools list", async () => {
    const script = await scriptModel(env.MODEL_SERVER_URL, [
      { toolCalls: [{ id: "c1", name: "delete_file", arguments: { path: "/a" } }] },
      { text: "Deleted /a." },
    ]);
    const deleted: string[] = [];
    const agent = new Agent({
      id: "ops",
      model: createModel("openai:gpt-test", { credentials: { openai: { baseURL: script.baseURL, apiKey: "k" } } }),
      tools: [
        tool({
          name: "delete_file",
          parameters: z.object({ path: z.string() }),
          requiresConfirmation: true,
          execute: ({ path }) => (deleted.push(path), "ok"),
        }),
      ],
    });
    const os = new AgentOS({ agents: [agent], auth: { mode: "none" } });
    const fetchOs = sdkFetch(os, "sdk_in_workerd");
    const paused = JSON.parse(
      (await fetchOs("/agents/ops/runs", form({ message: "delete /a", stream: "false" }))).text,
    );
    expect(paused).toMatchObject({ status: "PAUSED", requirements: [{ id: "c1", kind: "confirmation" }] });
    const tools = paused.tools.map((t: Record<string, unknown>) => ({ ...t, confirmed: true }));
    const resumed = await fetchOs(
      `/agents/ops/runs/${paused.run_id}/continue`,
      form({ tools: JSON.stringify(tools), session_id: paused.session_id }),
    );
    expect(resumed.status).toBe(200);
    const frames = parseSse(resumed.text);
    expect(frames.map((f) => f.event)).toEqual(
      expect.arrayContaining(["RunContinued", "ToolCallCompleted", "RunCompleted"]),
    );
    expect(deleted).toEqual(["/a"]);
  });
});
