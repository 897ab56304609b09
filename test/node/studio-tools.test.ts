import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ComponentRegistry } from "../../src/components/index.js";
import type { ComponentWriteEvent } from "../../src/components/index.js";
import { MemoryDb } from "../../src/db/memory/index.js";
import { StudioTools, type StudioResult } from "../../src/toolkits/studio/index.js";
import { tool, type ToolContext } from "../../src/tools/tool.js";
import { callThroughAgent } from "../support/toolkit-kit.js";

const lookup = tool({
  name: "lookup",
  description: "Look a word up.",
  parameters: z.object({ word: z.string() }),
  execute: ({ word }) => `${word}: a word`,
});

let db: MemoryDb;
let events: ComponentWriteEvent[];
let published: string[];
let studio: StudioTools;

beforeEach(() => {
  db = new MemoryDb();
  events = [];
  published = [];
  const registry = new ComponentRegistry({ models: ["openai:gpt-4o", "openai:gpt-4o-mini"], tools: [lookup] });
  studio = new StudioTools({
    db,
    registry,
    onWrite: (e) => void events.push(e),
    onPublish: (id) => void published.push(id),
  });
});

/** One tool call as the agent makes it: arguments parsed by the tool's schema, then executed for `userId`. */
async function call(name: string, args: Record<string, unknown>, userId: string | null = "alice") {
  const t = studio.tools.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  const ctx = {
    runId: "r",
    sessionId: "s",
    userId,
    sessionState: {},
    dependencies: {},
    signal: new AbortController().signal,
  } as ToolContext;
  return (await t.execute!(t.parameters.parse(args), ctx)) as StudioResult;
}

function errorOf(r: StudioResult) {
  expect(r.ok).toBe(false);
  if (r.ok) throw new Error("expected an error");
  return r.error;
}

function dataOf(r: StudioResult) {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.data;
}

describe("StudioTools", () => {
  it("has agno's toolkit id and tool names; deletion-shaped tools ask for confirmation", () => {
    expect(studio.id).toBe("studio");
    expect(studio.tools.map((t) => t.name)).toEqual([
      "list_models",
      "list_tools",
      "list_knowledge",
      "list_components",
      "get_component",
      "list_versions",
      "create_agent",
      "create_team",
      "create_workflow",
      "edit_agent",
      "edit_team",
      "edit_workflow",
      "validate_component",
      "publish_component",
      "set_current_version",
      "delete_version",
      "archive_component",
      "restore_component",
    ]);
    const confirming = studio.tools.filter((t) => t.requiresConfirmation).map((t) => t.name);
    expect(confirming.sort()).toEqual(["archive_component", "delete_version"]);
  });

  it("lists what a create may name: the registry's models, tools and knowledge bases, by exact name", async () => {
    expect(dataOf(await call("list_models", {}))).toEqual({
      models: [
        { id: "gpt-4o", provider: "openai" },
        { id: "gpt-4o-mini", provider: "openai" },
      ],
      count: 2,
    });
    expect(dataOf(await call("list_tools", {}))).toEqual({
      tools: [
        {
          name: "lookup",
          kind: "function",
          buildable: true,
          source: "declared",
          functions: [{ name: "lookup", description: "Look a word up.", has_side_effects: null }],
        },
      ],
      count: 1,
    });
    expect(dataOf(await call("list_knowledge", {}))).toEqual({ knowledge: [], count: 0 });
    // What list_tools names is what a create accepts.
    expect(
      dataOf(await call("create_agent", { name: "Listed", instructions: "x", tool_names: ["lookup"] })),
    ).toMatchObject({ id: "listed", name: "Listed" });
  });

  it("creates a draft, edits it, publishes it: each answer is the envelope, the catalog follows", async () => {
    const created = await call("create_agent", {
      name: "Word Helper",
      instructions: "Define words.",
      model_id: "openai:gpt-4o",
      tool_names: ["lookup"],
    });
    expect(created).toEqual({
      ok: true,
      status: "created",
      data: {
        id: "word-helper",
        name: "Word Helper",
        component_type: "agent",
        version: 1,
        stage: "draft",
        is_current: false,
      },
      warnings: [],
    });
    const row = await db.components.getComponent("word-helper");
    expect(row).toMatchObject({ user_id: "alice", current_version: null });

    const edited = dataOf(
      await call("edit_agent", { agent_id: "word-helper", instructions: "Define words briefly.", expected_version: 1 }),
    );
    expect(edited).toMatchObject({ id: "word-helper", version: 2, stage: "draft", is_current: false });
    const v2 = await db.components.getConfig("word-helper", 2);
    // the edit changed the instructions and kept the rest of version 1
    expect(v2?.config).toMatchObject({
      name: "Word Helper",
      instructions: "Define words briefly.",
      model: "openai:gpt-4o",
      tools: ["lookup"],
    });

    const pub = await call("publish_component", { component_id: "word-helper" });
    expect(pub).toMatchObject({ ok: true, status: "published", data: { id: "word-helper", version: 2 } });
    expect((await db.components.getComponent("word-helper"))?.current_version).toBe(2);
    expect(published).toEqual(["word-helper"]);

    const read = dataOf(await call("get_component", { component_id: "word-helper" }));
    expect(read).toMatchObject({ version: 2, stage: "published", is_current: true, current_version: 2 });
    const versions = dataOf(await call("list_versions", { component_id: "word-helper" }));
    expect(versions.versions).toMatchObject([
      { version: 2, stage: "published", is_current: true },
      { version: 1, stage: "draft", is_current: false },
    ]);
    expect(events.map((e) => [e.action, e.principal, e.version, e.after_version])).toEqual([
      ["component.create", "alice", 1, null],
      ["config.create", "alice", 2, null],
      ["config.update", "alice", 2, 2],
    ]);
    // The same writes are in the database's audit trail, as the run's user's.
    const audit = await db.audit.list({ limit: 10, page: 1 });
    expect(audit.data.map((r) => [r.principal, r.resource_type, r.action, r.resource_id])).toEqual([
      ["alice", "config", "update", "word-helper@2"],
      ["alice", "config", "create", "word-helper@2"],
      ["alice", "component", "create", "word-helper"],
    ]);
  });

  it("a stale guard answers version_conflict with the stored version, and writes nothing", async () => {
    await call("create_agent", { name: "A", instructions: "x", publish: true });
    await call("edit_agent", { agent_id: "a", instructions: "y", expected_version: 1 });

    const stale = errorOf(await call("edit_agent", { agent_id: "a", instructions: "z", expected_version: 1 }));
    expect(stale).toMatchObject({ code: "version_conflict", retryable: true, details: { latest_version: 2 } });
    const stalePublish = errorOf(await call("publish_component", { component_id: "a", expected_current_version: 2 }));
    expect(stalePublish).toMatchObject({ code: "version_conflict", details: { current_version: 1 } });
    const staleArchive = errorOf(await call("archive_component", { component_id: "a", expected_current_version: 2 }));
    expect(staleArchive.code).toBe("version_conflict");

    expect((await db.components.listConfigs("a")).map((c) => c.version)).toEqual([2, 1]);
    const row = await db.components.getComponent("a");
    expect(row).toMatchObject({ current_version: 1, deleted_at: null });
  });

  it("of concurrent guarded edits exactly one lands; the rest get version_conflict from the store's lock", async () => {
    await call("create_agent", { name: "Racer", instructions: "v1" });
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        call("edit_agent", { agent_id: "racer", instructions: `edit ${i}`, expected_version: 1 }),
      ),
    );
    const winners = results.filter((r) => r.ok);
    expect(winners).toHaveLength(1);
    for (const r of results.filter((x) => !x.ok)) expect(errorOf(r).code).toBe("version_conflict");
    expect((await db.components.listConfigs("racer")).map((c) => c.version)).toEqual([2, 1]);
  });

  it("an invalid config names every problem and writes nothing", async () => {
    const both = errorOf(
      await call("create_agent", {
        name: "Bad",
        instructions: "x",
        model_id: "openai:gpt-9",
        tool_names: ["lookup", "launch_rockets"],
      }),
    );
    expect(both.code).toBe("validation_failed");
    expect(both.details.problems).toEqual([
      "model: openai:gpt-9 is not allowed by this deployment",
      "tools.1: unknown tool launch_rockets",
    ]);
    expect(both.message).toContain("launch_rockets");
    expect(await db.components.getComponent("bad", { includeDeleted: true })).toBeNull();

    const toolOnly = errorOf(await call("create_agent", { name: "Bad", instructions: "x", tool_names: ["nope"] }));
    expect(toolOnly.code).toBe("tool_not_found");
    const modelOnly = errorOf(await call("create_agent", { name: "Bad", instructions: "x", model_id: "x:y" }));
    expect(modelOnly.code).toBe("model_not_found");

    const team = errorOf(await call("create_team", { name: "Crew", member_ids: ["ghost"] }));
    expect(team).toMatchObject({
      code: "validation_failed",
      details: { problems: ["members.0: agent ghost not found"] },
    });

    await call("create_agent", { name: "Good", instructions: "x" });
    const badEdit = errorOf(await call("edit_agent", { agent_id: "good", tool_names: ["nope"] }));
    expect(badEdit.code).toBe("tool_not_found");
    expect((await db.components.listConfigs("good")).map((c) => c.version)).toEqual([1]);
    expect(events.map((e) => e.action)).toEqual(["component.create"]);
  });

  it("publishing re-checks the draft against the registry as it is at the call", async () => {
    const wide = new ComponentRegistry({ models: ["openai:gpt-4o"], tools: [lookup] });
    let current = wide;
    studio = new StudioTools({ db, registry: () => current });
    await call("create_agent", { name: "Drifter", instructions: "x", tool_names: ["lookup"] });
    // the deployment dropped the tool after the draft was written
    current = new ComponentRegistry({ models: ["openai:gpt-4o"] });
    const refused = errorOf(await call("publish_component", { component_id: "drifter" }));
    expect(refused).toMatchObject({ code: "tool_not_found", details: { problems: ["tools.0: unknown tool lookup"] } });
    expect(errorOf(await call("validate_component", { component_id: "drifter" })).code).toBe("tool_not_found");
    expect((await db.components.getComponent("drifter"))?.current_version).toBeNull();
    current = wide;
    expect(await call("validate_component", { component_id: "drifter" })).toMatchObject({ ok: true, status: "valid" });
    expect(await call("publish_component", { component_id: "drifter" })).toMatchObject({
      ok: true,
      status: "published",
    });
  });

  it("teams and workflows record links to their stored members", async () => {
    await call("create_agent", { name: "Writer", instructions: "w", publish: true });
    const team = dataOf(await call("create_team", { name: "Crew", member_ids: ["writer"], publish: true }));
    expect(team).toMatchObject({ id: "crew", component_type: "team", stage: "published" });
    expect((await db.components.getConfig("crew"))?.config.members).toEqual([{ type: "agent", agent_id: "writer" }]);
    expect(await db.components.getLinks("crew", 1)).toMatchObject([{ child_component_id: "writer", child_version: 1 }]);

    const flow = dataOf(
      await call("create_workflow", {
        name: "Flow",
        steps: [{ name: "draft", agent_id: "writer" }, { team_id: "crew" }],
      }),
    );
    expect(flow).toMatchObject({ id: "flow", component_type: "workflow", stage: "draft" });

    // a linked member cannot be archived from under its team
    const refused = errorOf(await call("archive_component", { component_id: "writer" }));
    expect(refused.code).toBe("dependency_conflict");
    expect((await db.components.getComponent("writer"))?.deleted_at).toBeNull();
  });

  it("archives and restores; an archived id stays reserved", async () => {
    await call("create_agent", { name: "Old", instructions: "x", publish: true });
    const archived = await call("archive_component", { component_id: "old", expected_current_version: 1 });
    expect(archived).toMatchObject({ ok: true, status: "archived", data: { id: "old" } });
    expect(await db.components.getComponent("old")).toBeNull();

    expect(errorOf(await call("edit_agent", { agent_id: "old", instructions: "y" })).code).toBe("component_archived");
    expect(errorOf(await call("create_agent", { name: "Old", instructions: "x" }))).toMatchObject({
      code: "component_conflict",
      details: { existing_component_id: "old" },
    });
    expect(await call("archive_component", { component_id: "old" })).toMatchObject({ status: "already_archived" });

    expect(await call("restore_component", { component_id: "old" })).toMatchObject({ ok: true, status: "restored" });
    expect((await db.components.getComponent("old"))?.current_version).toBe(1);
    expect(errorOf(await call("restore_component", { component_id: "old" })).code).toBe("invalid_request");
  });

  it("set_current_version rolls back to a published version and refuses a draft", async () => {
    await call("create_agent", { name: "Roll", instructions: "v1", publish: true });
    await call("edit_agent", { agent_id: "roll", instructions: "v2", publish: true });
    await call("edit_agent", { agent_id: "roll", instructions: "v3" });
    expect(
      await call("set_current_version", { component_id: "roll", version: 1, expected_current_version: 2 }),
    ).toMatchObject({ ok: true, status: "set_current", data: { version: 1 } });
    expect((await db.components.getComponent("roll"))?.current_version).toBe(1);
    const draft = errorOf(await call("set_current_version", { component_id: "roll", version: 3 }));
    expect(["invalid_request", "version_not_found"]).toContain(draft.code);
    expect((await db.components.getComponent("roll"))?.current_version).toBe(1);
    // the draft behind nothing can still be deleted; the published ones cannot
    expect(errorOf(await call("delete_version", { component_id: "roll", version: 2 })).code).toBe("invalid_request");
    expect(await call("delete_version", { component_id: "roll", version: 3 })).toMatchObject({ status: "deleted" });
  });

  it("writes stay with the owner: others get not_owner, or not found for a draft they cannot see", async () => {
    await call("create_agent", { name: "Mine", instructions: "x", publish: true });
    await call("create_agent", { name: "Secret", instructions: "x" });
    expect(errorOf(await call("edit_agent", { agent_id: "mine", instructions: "hijack" }, "bob")).code).toBe(
      "not_owner",
    );
    expect(errorOf(await call("get_component", { component_id: "secret" }, "bob")).code).toBe("component_not_found");
    const list = dataOf(await call("list_components", {}, "bob"));
    expect((list.components as Array<{ id: string }>).map((c) => c.id)).toEqual(["mine"]);
    expect((await db.components.listConfigs("mine")).map((c) => c.version)).toEqual([1]);

    await call("create_agent", { name: "Shared", instructions: "x", publish: true }, null);
    expect(errorOf(await call("edit_agent", { agent_id: "shared", instructions: "y" })).code).toBe("shared_component");
  });

  it("answers a bad id with invalid_component_id and an unknown one with component_not_found", async () => {
    expect(errorOf(await call("create_agent", { name: "x", component_id: "a/b", instructions: "x" })).code).toBe(
      "invalid_component_id",
    );
    expect(errorOf(await call("get_component", { component_id: "nobody" })).code).toBe("component_not_found");
    expect(errorOf(await call("publish_component", { component_id: "nobody" })).code).toBe("component_not_found");
  });
});

describe("StudioTools through an agent run", () => {
  it("the model creates an agent as the run's user and reads the envelope", async () => {
    const { execution, toolMessage } = await callThroughAgent(
      [studio],
      "create_agent",
      { name: "Poet", instructions: "Write haiku.", publish: true },
      { userId: "carol" },
    );
    expect(execution.tool_name).toBe("create_agent");
    expect(JSON.parse(toolMessage)).toEqual({
      ok: true,
      status: "created",
      data: { id: "poet", name: "Poet", component_type: "agent", version: 1, stage: "published", is_current: true },
      warnings: [],
    });
    expect(await db.components.getComponent("poet")).toMatchObject({ user_id: "carol", current_version: 1 });
  });

  it("a stale edit reaches the model as version_conflict, and nothing is written", async () => {
    await call("create_agent", { name: "Poet", instructions: "v1" }, "carol");
    await call("edit_agent", { agent_id: "poet", instructions: "v2" }, "carol");
    const { toolMessage } = await callThroughAgent(
      [studio],
      "edit_agent",
      { agent_id: "poet", instructions: "v3", expected_version: 1 },
      { userId: "carol" },
    );
    const envelope = JSON.parse(toolMessage) as StudioResult;
    expect(envelope).toMatchObject({
      ok: false,
      status: "error",
      error: { code: "version_conflict", retryable: true },
    });
    expect((await db.components.listConfigs("poet")).map((c) => c.version)).toEqual([2, 1]);
  });

  it("bad arguments are refused before any write", async () => {
    const { execution } = await callThroughAgent(
      [studio],
      "publish_component",
      { component_id: "poet", version: 0 },
      { userId: "carol" },
    );
    expect(execution.tool_call_error).toBe(true);
    expect(events).toEqual([]);
  });
});
