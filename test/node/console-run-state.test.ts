import { describe, expect, it } from "vitest";
import { requirementResolutions, stepResolutions, type Answer } from "../../ui/src/resolutions.js";
import { applyEvent, newRun, type RunView } from "../../ui/src/run-state.js";
import { readSse, type SseFrame } from "../../ui/src/sse.js";

/** A body that arrives in the given pieces, as a network delivers it. */
function body(...pieces: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
}

async function frames(stream: ReadableStream<Uint8Array>): Promise<SseFrame[]> {
  const out: SseFrame[] = [];
  for await (const frame of readSse(stream)) out.push(frame);
  return out;
}

const run = (...events: Array<[string, Record<string, unknown>]>): RunView =>
  events.reduce((r, [event, data], id) => applyEvent(r, { id, event, data }), newRun());

/** The console's own logic, without a browser: how it reads a stream, what it makes of the events, what it sends back. */
describe("the console's run state", () => {
  it("reads SSE frames split anywhere, skips comments, and leaves a cut-off frame out", async () => {
    const got = await frames(
      body(
        'id: 0\nevent: RunStarted\ndata: {"run_id":"r1","session_id":"s1"}\n\n: ping\n\nid: 1\nevent: RunCon',
        'tent\ndata: {"run_id":"r1","content":"Hel"}\r\n\r\nid: 2\nevent: RunContent\ndata: {"run_id":"r1","content":"lo"}',
      ),
    );
    expect(got).toEqual([
      { id: 0, event: "RunStarted", data: { run_id: "r1", session_id: "s1" } },
      { id: 1, event: "RunContent", data: { run_id: "r1", content: "Hel" } },
    ]);
  });

  it("keeps a team member's run apart from the leader's, under agno's Team event names", () => {
    const r = run(
      ["TeamRunStarted", { run_id: "t1", session_id: "s1", team_name: "Desk" }],
      ["TeamToolCallStarted", { run_id: "t1", tool: { tool_call_id: "c1", tool_name: "delegate_task_to_member" } }],
      ["RunStarted", { run_id: "m1", parent_run_id: "t1", agent_name: "Researcher" }],
      ["RunContent", { run_id: "m1", content: "Two tides" }],
      ["RunCompleted", { run_id: "m1", content: "Two tides a day." }],
      ["TeamToolCallCompleted", { run_id: "t1", tool: { tool_call_id: "c1", result: "Two tides a day." } }],
      ["TeamRunContent", { run_id: "t1", content: "Done." }],
      ["TeamRunCompleted", { run_id: "t1", content: "Done." }],
    );
    expect(r).toMatchObject({ runId: "t1", sessionId: "s1", status: "completed", content: "Done.", lastEventIndex: 7 });
    expect(r.tools).toEqual([
      { id: "c1", name: "delegate_task_to_member", args: undefined, result: "Two tides a day.", done: true },
    ]);
    expect(r.members).toEqual([
      { runId: "m1", name: "Researcher", content: "Two tides a day.", tools: [], done: true },
    ]);
  });

  it("turns a paused agent's requirements into confirmations and input fields, and answers them as /continue takes them", () => {
    const r = run(
      ["RunStarted", { run_id: "r1", session_id: "s1" }],
      [
        "RunPaused",
        {
          run_id: "r1",
          requirements: [
            { id: "a", kind: "confirmation", resolved: false, tool_execution: { tool_name: "save_note" } },
            {
              id: "b",
              kind: "user_input",
              resolved: false,
              tool_execution: { tool_name: "ask", user_input_schema: [{ name: "city", field_type: "str" }] },
            },
            { id: "c", kind: "confirmation", resolved: true, tool_execution: { tool_name: "done_already" } },
          ],
        },
      ],
    );
    expect(r.status).toBe("paused");
    expect(r.pending.map((p) => [p.id, p.confirm, p.fields.map((f) => f.name)])).toEqual([
      ["a", true, []],
      ["b", false, ["city"]],
    ]);
    const answers = new Map<string, Answer>([
      ["/a", { confirmed: false, values: {} }],
      ["/b", { confirmed: true, values: { city: "Lyon" } }],
    ]);
    expect(requirementResolutions(r, answers)).toEqual([
      { id: "a", confirmed: false },
      { id: "b", user_input: { city: "Lyon" } },
    ]);
  });

  it("follows a workflow's steps and answers its review, or its step agent's requirements, per step", () => {
    const r = run(
      ["WorkflowStarted", { run_id: "w1", session_id: "s1", workflow_id: "blog" }],
      ["StepStarted", { run_id: "w1", step_name: "research" }],
      ["StepCompleted", { run_id: "w1", step_name: "research" }],
      [
        "WorkflowPaused",
        {
          run_id: "w1",
          step_requirements: [
            { step_id: "s-write", step_name: "write", requires_confirmation: true, confirmation_message: "Write?" },
            {
              step_id: "s-tool",
              requires_executor_input: true,
              executor_requirements: [{ id: "x", kind: "confirmation", tool_execution: { tool_name: "publish" } }],
            },
          ],
        },
      ],
    );
    expect(r.steps).toEqual([{ name: "research", status: "done" }]);
    expect(r.pending.map((p) => [p.source, p.message])).toEqual([
      ["step", "Write?"],
      ["executor", "Run publish?"],
    ]);
    const answers = new Map(r.pending.map((p) => [p.key, { confirmed: true, values: {} }]));
    expect(stepResolutions(r, answers)).toEqual([
      { step_id: "s-write", confirmed: true },
      { step_id: "s-tool", executor_requirements: [{ id: "x", confirmed: true }] },
    ]);
  });

  it("ends on an error or a cancel with its reason", () => {
    expect(run(["RunStarted", { run_id: "r" }], ["RunError", { run_id: "r", content: "boom" }])).toMatchObject({
      status: "error",
      error: "boom",
    });
    expect(
      run(["WorkflowStarted", { run_id: "w" }], ["WorkflowCancelled", { run_id: "w", reason: "timed out" }]),
    ).toMatchObject({ status: "cancelled", error: "timed out" });
  });
});
