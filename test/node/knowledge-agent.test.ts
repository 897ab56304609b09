import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { Team } from "../../src/team/index.js";
import { MemoryDb } from "../../src/db/memory/memory-db.js";
import { openAIEmbedder } from "../../src/knowledge/embedders/openai-embedder.js";
import { Knowledge } from "../../src/knowledge/knowledge.js";
import { knowledgeContext } from "../../src/knowledge/agent-knowledge.js";
import { InMemoryVectorDb } from "../../src/knowledge/vectordb/in-memory-vector-db.js";
import { scriptedModel } from "../support/agent-kit.js";
import { startEmbeddingServer, type EmbeddingServer } from "../support/embedding-server.js";

const GUIDE = [
  "# Support guide",
  "## Refunds",
  "Refunds are paid back to the original card within five business days.",
  "## Shipping",
  "Parcels ship from Rotterdam every weekday morning by courier.",
].join("\n\n");

describe("agents with knowledge", () => {
  let server: EmbeddingServer;
  let db: MemoryDb;
  let kb: Knowledge;
  beforeAll(async () => {
    server = await startEmbeddingServer();
    db = new MemoryDb();
    kb = new Knowledge({
      name: "support",
      vectorDb: new InMemoryVectorDb({
        embedder: openAIEmbedder({ baseURL: server.baseURL, apiKey: "k", dimensions: 64 }),
      }),
    }).withDb(db);
    await kb.insert({
      name: "guide.md",
      textContent: GUIDE,
      contentType: "text/markdown",
      chunker: "MarkdownChunker",
      chunkSize: 80,
    });
    await kb.insert({ name: "private.md", textContent: "Refunds for Alice go to her bank account.", userId: "alice" });
  });
  afterAll(() => server.stop());

  it("a run without a user searches the shared contents only", async () => {
    const anon = await knowledgeContext(kb, "Refunds for Alice bank account", { userId: null });
    expect(anon).toContain("<references>");
    expect(anon).not.toContain("her bank account");
    const alice = await knowledgeContext(kb, "Refunds for Alice bank account", { userId: "alice" });
    expect(alice).toContain("her bank account");
  });

  it("the model calls search_knowledge_base, gets the chunks, answers; the run stores the references", async () => {
    const { model, script } = await scriptedModel([
      {
        toolCalls: [{ id: "call_1", name: "search_knowledge_base", arguments: { query: "how long do refunds take" } }],
      },
      { text: "Refunds take five business days." },
    ]);
    const agent = new Agent({ name: "helper", model, knowledge: kb, db });
    const out = await agent.run("How long do refunds take?", { userId: "bob" });
    expect(out.status).toBe("COMPLETED");
    expect(out.content).toBe("Refunds take five business days.");
    const [first, second] = await script.requests();
    const tools = first!.body.tools as Array<{ function: { name: string; parameters: { properties: object } } }>;
    expect(tools.map((t) => t.function.name)).toContain("search_knowledge_base");
    expect(
      tools.find((t) => t.function.name === "search_knowledge_base")!.function.parameters.properties,
    ).toHaveProperty("query");
    // the tool's answer, as the model received it: agno's documents as JSON (name, meta_data, content)
    const toolMessage = (second!.body.messages as Array<{ role: string; content: string }>).find(
      (m) => m.role === "tool",
    )!;
    const sent = JSON.parse(toolMessage.content) as Array<{
      name: string;
      content: string;
      meta_data: Record<string, unknown>;
    }>;
    expect(sent[0]).toMatchObject({ name: "guide", content: expect.stringContaining("Refunds are paid back") });
    expect(sent[0]!.meta_data).toMatchObject({ linked_to: "support", chunk: expect.any(Number) });
    // Bob's search sees shared contents, never Alice's
    expect(sent.some((d) => d.content.includes("Alice"))).toBe(false);
    expect(out.references).toHaveLength(1);
    expect(out.references![0]).toMatchObject({
      query: "how long do refunds take",
      references: sent,
      time: expect.any(Number),
    });
    const stored = await db.getRun(out.run_id);
    expect((stored!.run_data as { references?: unknown }).references).toEqual(out.references);
  });

  it("a user's search sees their own contents too", async () => {
    const { model, script } = await scriptedModel([
      { toolCalls: [{ name: "search_knowledge_base", arguments: { query: "refunds Alice bank account" } }] },
      { text: "To your bank account." },
    ]);
    const out = await new Agent({ name: "helper", model, knowledge: kb, db }).run("Where do my refunds go?", {
      userId: "alice",
    });
    const toolMessage = ((await script.requests())[1]!.body.messages as Array<{ role: string; content: string }>).find(
      (m) => m.role === "tool",
    )!;
    expect(toolMessage.content).toMatch(/Refunds for Alice go to her bank account/);
    expect(out.references![0]!.references.length).toBeGreaterThan(0);
  });

  it("addKnowledgeToContext: the input's references go into the user message and onto the run; no tool with searchKnowledge false", async () => {
    const { model, script } = await scriptedModel([{ text: "From Rotterdam." }]);
    const agent = new Agent({
      name: "ctx",
      model,
      knowledge: kb,
      searchKnowledge: false,
      addKnowledgeToContext: true,
      knowledgeFilters: { linked_to: "support" },
      db,
    });
    const out = await agent.run("Where do parcels ship from?");
    const [request] = await script.requests();
    expect(request!.body.tools).toBeUndefined();
    const user = (request!.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === "user")!;
    expect(user.content).toMatch(
      /^Where do parcels ship from\?\n\nUse the following references from the knowledge base if it helps:\n<references>\n[\s\S]*Rotterdam[\s\S]*\n<\/references>$/,
    );
    expect(out.references).toHaveLength(1);
    expect(out.references![0]!.query).toBe("Where do parcels ship from?");
    // filters apply: nothing outside the filter is referenced
    const { model: m2, script: s2 } = await scriptedModel([{ text: "?" }]);
    const filtered = await new Agent({
      name: "ctx2",
      model: m2,
      knowledge: kb,
      searchKnowledge: false,
      addKnowledgeToContext: true,
      knowledgeFilters: { linked_to: "elsewhere" },
    }).run("Where do parcels ship from?");
    expect(filtered.references).toBeUndefined();
    const u2 = ((await s2.requests())[0]!.body.messages as Array<{ role: string; content: string }>).find(
      (m) => m.role === "user",
    )!;
    expect(u2.content).toBe("Where do parcels ship from?");
  });

  it("a failing search answers the model with an error line and the run goes on", async () => {
    const broken = new Knowledge({ name: "broken", vectorDb: new InMemoryVectorDb() });
    const { model, script } = await scriptedModel([
      { toolCalls: [{ name: "search_knowledge_base", arguments: { query: "x" } }] },
      { text: "Sorry." },
    ]);
    const out = await new Agent({ name: "b", model, knowledge: broken }).run("x?");
    expect(out.status).toBe("COMPLETED");
    const tool = ((await script.requests())[1]!.body.messages as Array<{ role: string; content: string }>).find(
      (m) => m.role === "tool",
    )!;
    expect(tool.content).toBe("Error searching knowledge base: NotConfiguredError");
    expect(() => new Agent({ name: "c", model, knowledge: kb, tools: [] })).not.toThrow();
  });

  it("a team's leader gets search_knowledge_base too, and the team run stores the references", async () => {
    const { model: memberModel } = await scriptedModel([]);
    const member = new Agent({ name: "writer", model: memberModel });
    const { model, script } = await scriptedModel([
      { toolCalls: [{ name: "search_knowledge_base", arguments: { query: "where do parcels ship from" } }] },
      { text: "Rotterdam." },
    ]);
    const team = new Team({ name: "desk", model, members: [member], knowledge: kb, db });
    const out = await team.run("Where do parcels ship from?", { userId: "bob" });
    expect(out.content).toBe("Rotterdam.");
    const tools = (await script.requests())[0]!.body.tools as Array<{ function: { name: string } }>;
    expect(tools.map((t) => t.function.name)).toContain("search_knowledge_base");
    expect(out.references![0]!.references[0]).toMatchObject({ content: expect.stringContaining("Rotterdam") });
    expect(((await db.getRun(out.run_id))!.run_data as { references?: unknown[] }).references).toHaveLength(1);
  });
});
