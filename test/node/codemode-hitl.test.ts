import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type { RunOutput } from "../../src/agent/run-output.js";
// From the package's entry, as a Node app imports them (the README's `memoryCodeRunner in Node`).
import { CodeMode, memoryCodeRunner } from "../../src/sdk.js";
import { ForbiddenError } from "../../src/errors.js";
import { tool } from "../../src/tools/tool.js";
import { collect, memoryTestDb, scriptedModel } from "../support/agent-kit.js";

/**
 * Human in the loop from inside a CodeMode cell (SPEC C3 with G2): a tool that needs a person
 * pauses the run just as it does outside CodeMode; when the run continues, the cell runs again
 * from its start and the tool calls it already made answer from the journal, not again.
 */
describe("CodeMode: a cell pauses for a person and continues without repeating tool calls", () => {
  let t: ReturnType<typeof memoryTestDb>;
  const runner = memoryCodeRunner(() => newQuickJSWASMModuleFromVariant(releaseSync));
  const ran: string[] = [];
  beforeAll(() => {
    t = memoryTestDb();
  });
  afterAll(() => t.close());

  const lookup = tool({
    name: "lookup",
    parameters: z.object({ id: z.number() }),
    execute: ({ id }) => {
      ran.push(`lookup ${id}`);
      return { id, owner: `user${id}@example.com` };
    },
  });
  const deleteItem = tool({
    name: "delete_item",
    parameters: z.object({ id: z.number() }),
    requiresConfirmation: true,
    execute: ({ id }) => {
      ran.push(`delete ${id}`);
      return { deleted: id };
    },
  });
  const notify = tool({
    name: "notify",
    parameters: z.object({ to: z.string().email(), text: z.string() }),
    requiresUserInput: true,
    userInputFields: ["to"],
    execute: ({ to, text }) => {
      ran.push(`notify ${to}: ${text}`);
      return "sent";
    },
  });
  const shell = tool({ name: "shell", parameters: z.object({ cmd: z.string() }), externalExecution: true });
  const refund = tool({
    name: "refund",
    parameters: z.object({ cents: z.number() }),
    requiresApproval: true,
    execute: ({ cents }) => {
      ran.push(`refund ${cents}`);
      return "refunded";
    },
  });

  // Every continue goes through a new Agent: the cell's journal comes from storage, not memory.
  const agentWith = (model: Agent["model"]) =>
    new Agent({
      id: "coder",
      model,
      db: t.db,
      tools: [new CodeMode({ tools: [lookup, deleteItem, notify, shell, refund], runner })],
    });
  const codeCall = (id: string, code: string) => ({ toolCalls: [{ id, name: "run_code", arguments: { code } }] });
  const lastToolAnswer = async (script: Awaited<ReturnType<typeof scriptedModel>>["script"], request: number) => {
    const messages = (await script.requests())[request]!.body.messages as Array<{ role: string; content: string }>;
    return JSON.parse(messages.filter((m) => m.role === "tool").at(-1)!.content) as {
      result?: unknown;
      error?: string;
      logs?: string;
    };
  };
  const take = () => ran.splice(0);

  it("pauses on a call that needs confirmation, then runs it once after approval; earlier calls are not repeated", async () => {
    take();
    const code = `const a = await lookup({ id: 1 });\nconst b = await lookup({ id: 2 });\nconsole.log("owners", a.owner, b.owner);\nconst done = await delete_item({ id: a.id });\nconst total = 40 + 2;\nreturn { done, owners: [a.owner, b.owner] };`;
    const { model, script } = await scriptedModel([codeCall("k1", code), { text: "Deleted item 1." }]);
    const events = await collect(agentWith(model).run("delete item 1", { stream: true, userId: "u1" }));
    const paused = events.at(-1)!;
    expect(paused.event).toBe("RunPaused");
    expect(events.map((e) => e.event)).not.toContain("ToolCallCompleted");
    const stored = await t.db.getRun(paused.run_id);
    expect(stored!.status).toBe("PAUSED");
    const requirement = (stored!.run_data as unknown as RunOutput).requirements[0]!;
    expect(requirement).toMatchObject({
      id: "k1",
      kind: "confirmation",
      paused_tool_name: "run_code",
      resolved: false,
      tool_execution: {
        tool_call_id: "k1",
        tool_name: "delete_item",
        tool_args: { id: 1 },
        requires_confirmation: true,
      },
    });
    // The event and the stored run list the same paused call: run_code, flagged, which agno's client answers.
    const flagged = [{ tool_call_id: "k1", tool_name: "run_code", requires_confirmation: true }];
    expect((paused as { tools: unknown[] }).tools).toMatchObject(flagged);
    expect((stored!.run_data as unknown as RunOutput).tools).toMatchObject(flagged);
    expect(take()).toEqual(["lookup 1", "lookup 2"]);

    const out = await agentWith(model).continueRun(paused.run_id, {
      requirements: [{ id: "k1", confirmed: true }],
      userId: "u1",
    });
    expect(out.status).toBe("COMPLETED");
    expect(out.content).toBe("Deleted item 1.");
    expect(take()).toEqual(["delete 1"]);
    expect(await lastToolAnswer(script, 1)).toEqual({
      result: { done: { deleted: 1 }, owners: ["user1@example.com", "user2@example.com"] },
      logs: "owners user1@example.com user2@example.com\n",
    });
    // The cell finished on the continued run, so its top-level names are the session's now.
    const { model: next, script: nextScript } = await scriptedModel([codeCall("k1b", "return total"), { text: "42" }]);
    await agentWith(next).run("and the total?", { userId: "u1", sessionId: out.session_id });
    expect(await lastToolAnswer(nextScript, 1)).toEqual({ result: 42 });
    expect(take()).toEqual([]);
  });

  it("a rejection throws inside the cell, which can catch it; the tool never runs", async () => {
    take();
    const code = `const a = await lookup({ id: 3 });\ntry { await delete_item({ id: a.id }); return "deleted" } catch (e) { return "kept: " + e.message }`;
    const { model, script } = await scriptedModel([codeCall("k2", code), { text: "Kept it." }]);
    const paused = await agentWith(model).run("delete item 3");
    expect(paused.status).toBe("PAUSED");
    const out = await agentWith(model).continueRun(paused.run_id, {
      requirements: [{ id: "k2", confirmed: false, confirmation_note: "not today" }],
    });
    expect(out.status).toBe("COMPLETED");
    expect(take()).toEqual(["lookup 3"]);
    expect(await lastToolAnswer(script, 1)).toEqual({
      result: "kept: the user rejected this call to delete_item: not today",
    });
  });

  it("two confirmations in one cell pause twice; each call runs once in all", async () => {
    take();
    const code = `const items = await Promise.all([lookup({ id: 4 }), lookup({ id: 5 })]);\nconst out = [];\nfor (const item of items) out.push(await delete_item({ id: item.id }));\nreturn out;`;
    const { model, script } = await scriptedModel([codeCall("k3", code), { text: "Both deleted." }]);
    const first = await agentWith(model).run("delete 4 and 5");
    expect(first.requirements[0]!.tool_execution.tool_args).toEqual({ id: 4 });
    const second = await agentWith(model).continueRun(first.run_id, { requirements: [{ id: "k3", confirmed: true }] });
    expect(second.status).toBe("PAUSED");
    expect(second.requirements).toHaveLength(1);
    expect(second.requirements[0]).toMatchObject({
      id: "k3",
      resolved: false,
      tool_execution: { tool_name: "delete_item", tool_args: { id: 5 } },
    });
    const done = await agentWith(model).continueRun(first.run_id, { requirements: [{ id: "k3", confirmed: true }] });
    expect(done.status).toBe("COMPLETED");
    expect(take().sort()).toEqual(["delete 4", "delete 5", "lookup 4", "lookup 5"]);
    expect(await lastToolAnswer(script, 1)).toEqual({ result: [{ deleted: 4 }, { deleted: 5 }] });
    // One model request before the pause and one after: the pauses cost the model nothing.
    expect(await script.requests()).toHaveLength(2);
  });

  it("calls running beside the paused one finish and are journaled, not run again", async () => {
    take();
    const code = `const [a, d, b] = await Promise.all([lookup({ id: 6 }), delete_item({ id: 6 }), lookup({ id: 7 })]);\nreturn [a.id, d.deleted, b.id];`;
    const { model, script } = await scriptedModel([codeCall("k4", code), { text: "ok" }]);
    const paused = await agentWith(model).run("parallel");
    expect(take().sort()).toEqual(["lookup 6", "lookup 7"]);
    await agentWith(model).continueRun(paused.run_id, { requirements: [{ id: "k4", confirmed: true }] });
    expect(take()).toEqual(["delete 6"]);
    expect(await lastToolAnswer(script, 1)).toEqual({ result: [6, 6, 7] });
  });

  it("asks for user input from inside a cell and runs the tool with it", async () => {
    take();
    const code = `return await notify({ to: "", text: "build is green" })`;
    const { model, script } = await scriptedModel([codeCall("k5", code), { text: "Notified." }]);
    const paused = await agentWith(model).run("tell someone");
    expect(paused.requirements[0]).toMatchObject({
      kind: "user_input",
      tool_execution: { tool_name: "notify", user_input_schema: [{ name: "to", value: "" }] },
    });
    const out = await agentWith(model).continueRun(paused.run_id, {
      requirements: [{ id: "k5", user_input: { to: "ops@example.com" } }],
    });
    expect(out.status).toBe("COMPLETED");
    expect(take()).toEqual(["notify ops@example.com: build is green"]);
    expect(await lastToolAnswer(script, 1)).toEqual({ result: "sent" });
  });

  it("checks a person's input against the tool's schema: a bad field throws into the cell, naming it; the tool never runs", async () => {
    take();
    const { model, script } = await scriptedModel([
      codeCall("k9", `return await notify({ to: "", text: "hi" })`),
      { text: "Could not notify." },
    ]);
    const paused = await agentWith(model).run("tell someone");
    const out = await agentWith(model).continueRun(paused.run_id, {
      requirements: [{ id: "k9", user_input: { to: "not an address" } }],
    });
    expect(out.status).toBe("COMPLETED");
    expect(take()).toEqual([]);
    expect((await lastToolAnswer(script, 1)).error).toMatch(
      /^ToolError: notify: invalid arguments after the user's input: to: .*email/i,
    );
  });

  it("hands an external execution to the caller and returns its result into the cell", async () => {
    take();
    const code = `const up = await shell({ cmd: "uptime" });\nreturn up.days * 24`;
    const { model, script } = await scriptedModel([codeCall("k6", code), { text: "72 hours." }]);
    const paused = await agentWith(model).run("uptime in hours");
    expect(paused.requirements[0]).toMatchObject({
      kind: "external_execution",
      tool_execution: { tool_name: "shell", tool_args: { cmd: "uptime" }, external_execution_required: true },
    });
    await agentWith(model).continueRun(paused.run_id, {
      requirements: [{ id: "k6", external_execution_result: '{"days":3}' }],
    });
    expect(await lastToolAnswer(script, 1)).toEqual({ result: 72 });
  });

  it("a call that needs an admin's approval pauses the cell; only an admin can continue it", async () => {
    take();
    const code = `const a = await lookup({ id: 8 });\nreturn await refund({ cents: a.id * 100 })`;
    const { model, script } = await scriptedModel([codeCall("k8", code), { text: "Refunded." }]);
    const paused = await agentWith(model).run("refund item 8");
    expect(paused.requirements[0]).toMatchObject({
      id: "k8",
      kind: "confirmation",
      requires_admin: true,
      paused_tool_name: "run_code",
      tool_execution: { tool_name: "refund", tool_args: { cents: 800 }, requires_approval: true },
    });
    await expect(
      agentWith(model).continueRun(paused.run_id, { requirements: [{ id: "k8", confirmed: true }] }),
    ).rejects.toThrow(ForbiddenError);
    expect((await t.db.getRun(paused.run_id))!.status).toBe("PAUSED");
    const out = await agentWith(model).continueRun(paused.run_id, {
      requirements: [{ id: "k8", confirmed: true }],
      approver: { isAdmin: true },
    });
    expect(out.status).toBe("COMPLETED");
    expect(take()).toEqual(["lookup 8", "refund 800"]);
    expect(await lastToolAnswer(script, 1)).toEqual({ result: "refunded" });
  });

  it("a paused run's checkpoint stays on the server: a continue cannot carry one", async () => {
    const { model } = await scriptedModel([codeCall("k7", `return await delete_item({ id: 9 })`)]);
    const paused = await agentWith(model).run("delete 9");
    const forged = {
      id: "k7",
      confirmed: true,
      checkpoint: { code: "return 1", journal: [], pending: { name: "delete_item", args: '{"id":9}' } },
    };
    await expect(agentWith(model).continueRun(paused.run_id, { requirements: [forged as never] })).rejects.toThrow(
      /checkpoint/,
    );
    expect((await t.db.getRun(paused.run_id))!.status).toBe("PAUSED");
    expect(take()).toEqual([]);
  });
});
