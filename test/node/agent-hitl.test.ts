import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { ForbiddenError, StatusConflictError, ValidationError } from "../../src/errors.js";
import { tool } from "../../src/tools/tool.js";
import { collect, scriptedModel, memoryTestDb } from "../support/agent-kit.js";

/** Human in the loop (SPEC G2): pause, store, continue from another Agent object with storage only. */
describe("Agent human in the loop", () => {
  let t: ReturnType<typeof memoryTestDb>;
  const executed: string[] = [];
  beforeAll(() => {
    t = memoryTestDb();
  });
  afterAll(() => t.close());

  const deleteFile = tool({
    name: "delete_file",
    parameters: z.object({ path: z.string() }),
    requiresConfirmation: true,
    execute: ({ path }) => {
      executed.push(`delete ${path}`);
      return `deleted ${path}`;
    },
  });
  const sendEmail = tool({
    name: "send_email",
    parameters: z.object({ to: z.string().email(), body: z.string() }),
    requiresUserInput: true,
    userInputFields: ["to"],
    execute: ({ to, body }) => {
      executed.push(`email ${to}: ${body}`);
      return "sent";
    },
  });
  const runShell = tool({ name: "run_shell", parameters: z.object({ cmd: z.string() }), externalExecution: true });
  const wireMoney = tool({
    name: "wire_money",
    parameters: z.object({ amount: z.number() }),
    requiresApproval: true,
    execute: ({ amount }) => {
      executed.push(`wire ${amount}`);
      return "wired";
    },
  });
  // Every continue below goes through a new Agent object: nothing is carried in memory.
  const agentWith = (model: Agent["model"]) =>
    new Agent({ id: "ops", model, tools: [deleteFile, sendEmail, runShell, wireMoney], db: t.db });

  it("pauses for confirmation, stores the pause, and continues after approval", async () => {
    const { model, script } = await scriptedModel([
      { toolCalls: [{ id: "c1", name: "delete_file", arguments: { path: "/tmp/a" } }] },
      { text: "Deleted." },
    ]);
    const events = await collect(agentWith(model).run("delete /tmp/a", { stream: true, userId: "u" }));
    const paused = events.at(-1)!;
    expect(paused.event).toBe("RunPaused");
    const runId = paused.run_id;
    const stored = await t.db.getRun(runId);
    expect(stored!.status).toBe("PAUSED");
    expect(stored!.run_data.requirements).toMatchObject([
      {
        id: "c1",
        kind: "confirmation",
        resolved: false,
        tool_execution: { tool_name: "delete_file", requires_confirmation: true },
      },
    ]);
    expect(executed).not.toContain("delete /tmp/a");

    const resumed = await collect(
      agentWith(model).continueRun(runId, { requirements: [{ id: "c1", confirmed: true }], stream: true, userId: "u" }),
    );
    expect(resumed.map((e) => e.event)).toEqual(
      expect.arrayContaining(["RunContinued", "ToolCallCompleted", "RunCompleted"]),
    );
    expect(executed).toContain("delete /tmp/a");
    expect(await t.db.getRun(runId)).toMatchObject({ status: "COMPLETED" });
    expect(
      ((await script.requests())[1]!.body.messages as Array<{ role: string; content: string }>).at(-1),
    ).toMatchObject({ role: "tool", content: "deleted /tmp/a" });
    // Resolutions are for a paused run; a finished one is refused them (without any, it would go on in a new run).
    await expect(
      agentWith(model).continueRun(runId, { requirements: [{ id: "c1", confirmed: true }] }),
    ).rejects.toThrow(StatusConflictError);
    expect(await t.db.getRun(runId)).toMatchObject({ status: "COMPLETED" });
  });

  it("a rejection never runs the tool and tells the model why", async () => {
    const { model, script } = await scriptedModel([
      { toolCalls: [{ id: "c2", name: "delete_file", arguments: { path: "/etc" } }] },
      { text: "Understood, I will not." },
    ]);
    const paused = await agentWith(model).run("delete /etc");
    const out = await agentWith(model).continueRun(paused.run_id, {
      requirements: [{ id: "c2", confirmed: false, confirmation_note: "never /etc" }],
    });
    expect(out.status).toBe("COMPLETED");
    expect(executed).not.toContain("delete /etc");
    const last = ((await script.requests())[1]!.body.messages as Array<{ content: string }>).at(-1)!;
    expect(last.content).toBe("The user rejected this tool call: never /etc");
  });

  it("asks for user input and runs the tool with it", async () => {
    const { model } = await scriptedModel([
      { toolCalls: [{ id: "c3", name: "send_email", arguments: { to: "", body: "hello" } }] },
      { text: "Sent." },
    ]);
    const paused = await agentWith(model).run("email my boss");
    expect(paused.requirements[0]!.tool_execution.user_input_schema).toEqual([
      { name: "to", field_type: "string", description: null, value: "" },
    ]);
    await expect(agentWith(model).continueRun(paused.run_id, { requirements: [{ id: "c3" }] })).rejects.toThrow(
      ValidationError,
    );
    const out = await agentWith(model).continueRun(paused.run_id, {
      requirements: [{ id: "c3", user_input: { to: "boss@example.com" } }],
    });
    expect(out.status).toBe("COMPLETED");
    expect(executed).toContain("email boss@example.com: hello");
  });

  it("hands external execution to the caller and feeds back the result it sends", async () => {
    const { model, script } = await scriptedModel([
      { toolCalls: [{ id: "c4", name: "run_shell", arguments: { cmd: "uptime" } }] },
      { text: "Up 3 days." },
    ]);
    const paused = await agentWith(model).run("uptime?");
    expect(paused.requirements[0]).toMatchObject({
      kind: "external_execution",
      tool_execution: { external_execution_required: true, tool_args: { cmd: "uptime" } },
    });
    const out = await agentWith(model).continueRun(paused.run_id, {
      requirements: [{ id: "c4", external_execution_result: "up 3 days" }],
    });
    expect(out.content).toBe("Up 3 days.");
    expect(((await script.requests())[1]!.body.messages as Array<{ content: string }>).at(-1)!.content).toBe(
      "up 3 days",
    );
  });

  it("with several requirements, resolving some keeps the run paused and loses none", async () => {
    const { model } = await scriptedModel([
      {
        toolCalls: [
          { id: "d1", name: "delete_file", arguments: { path: "/x" } },
          { id: "d2", name: "delete_file", arguments: { path: "/y" } },
        ],
      },
      { text: "Both handled." },
    ]);
    const paused = await agentWith(model).run("delete /x and /y");
    const partial = await agentWith(model).continueRun(paused.run_id, {
      requirements: [{ id: "d2", confirmed: true }],
    });
    expect(partial.status).toBe("PAUSED");
    const stored = await t.db.getRun(paused.run_id);
    expect(stored!.status).toBe("PAUSED");
    expect(
      (stored!.run_data.requirements as Array<{ id: string; resolved: boolean }>).map((r) => [r.id, r.resolved]),
    ).toEqual([
      ["d1", false],
      ["d2", true],
    ]);
    expect(executed).not.toContain("delete /y");
    const done = await agentWith(model).continueRun(paused.run_id, { requirements: [{ id: "d1", confirmed: false }] });
    expect(done.status).toBe("COMPLETED");
    expect(executed).toContain("delete /y");
    expect(executed).not.toContain("delete /x");
  });

  it("admin-only approvals refuse a non-admin and accept an admin", async () => {
    const { model } = await scriptedModel([
      { toolCalls: [{ id: "w1", name: "wire_money", arguments: { amount: 500 } }] },
      { text: "Wired." },
    ]);
    const paused = await agentWith(model).run("pay 500");
    expect(paused.requirements[0]).toMatchObject({ requires_admin: true, tool_execution: { requires_approval: true } });
    await expect(
      agentWith(model).continueRun(paused.run_id, { requirements: [{ id: "w1", confirmed: true }] }),
    ).rejects.toThrow(ForbiddenError);
    expect((await t.db.getRun(paused.run_id))!.status).toBe("PAUSED");
    const out = await agentWith(model).continueRun(paused.run_id, {
      requirements: [{ id: "w1", confirmed: true }],
      approver: { isAdmin: true },
    });
    expect(out.status).toBe("COMPLETED");
    expect(executed).toContain("wire 500");
  });

  it("refuses another user's paused run and unknown requirement ids", async () => {
    const { model } = await scriptedModel([
      { toolCalls: [{ id: "z1", name: "delete_file", arguments: { path: "/z" } }] },
    ]);
    const paused = await agentWith(model).run("delete /z", { userId: "owner" });
    await expect(
      agentWith(model).continueRun(paused.run_id, {
        requirements: [{ id: "z1", confirmed: true }],
        userId: "intruder",
      }),
    ).rejects.toThrow(/not found/);
    await expect(
      agentWith(model).continueRun(paused.run_id, { requirements: [{ id: "nope", confirmed: true }], userId: "owner" }),
    ).rejects.toThrow(ValidationError);
    expect((await t.db.getRun(paused.run_id))!.status).toBe("PAUSED");
  });
});
