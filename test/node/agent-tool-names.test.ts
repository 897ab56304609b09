import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { MemoryDb } from "../../src/db/memory/index.js";
import { InMemoryVectorDb } from "../../src/knowledge/vectordb/in-memory-vector-db.js";
import { Knowledge } from "../../src/knowledge/knowledge.js";
import { LearningMachine } from "../../src/learn/machine.js";
import type { Model } from "../../src/models/model.js";
import { tool } from "../../src/tools/tool.js";
import { scriptedModel } from "../support/agent-kit.js";

/** Options that add tools (memory, learning, knowledge, offload) never silently replace one another's or the agent's own. */
describe("tools added by options", () => {
  let model: Model;
  beforeAll(async () => {
    ({ model } = await scriptedModel([]));
  });
  const db = new MemoryDb();
  const own = (name: string) => tool({ name, description: name, parameters: z.object({}), execute: async () => "own" });

  it("agentic memory and an agentic learning user memory both add update_user_memory: refused, naming both", () => {
    expect(
      () =>
        new Agent({
          model,
          db,
          enableAgenticMemory: true,
          learning: new LearningMachine({ userMemory: { mode: "agentic" } }),
        }),
    ).toThrow(/learning adds the tool update_user_memory, which enableAgenticMemory already hold/);
  });

  it("an option's tool named like one of the agent's own is refused, for each option", () => {
    expect(() => new Agent({ model, db, tools: [own("update_user_memory")], enableAgenticMemory: true })).toThrow(
      /enableAgenticMemory adds the tool update_user_memory, which the agent's own tools already hold/,
    );
    expect(() => new Agent({ model, db, tools: [own("read_result")], offloadToolResults: true })).toThrow(
      /offloadToolResults adds the tool read_result/,
    );
    const knowledge = new Knowledge({ name: "kb", vectorDb: new InMemoryVectorDb() });
    expect(() => new Agent({ model, db, tools: [own("search_knowledge_base")], knowledge })).toThrow(
      /knowledge adds the tool search_knowledge_base/,
    );
    // Turned off, the option adds nothing, so the agent's own tool stands.
    expect(
      () => new Agent({ model, db, tools: [own("search_knowledge_base")], knowledge, searchKnowledge: false }),
    ).not.toThrow();
  });

  it("options whose tools differ go together", () => {
    const knowledge = new Knowledge({ name: "kb", vectorDb: new InMemoryVectorDb() });
    expect(
      () =>
        new Agent({
          model,
          db,
          enableAgenticMemory: true,
          offloadToolResults: true,
          knowledge,
          learning: new LearningMachine({ userProfile: { mode: "agentic" } }),
        }),
    ).not.toThrow();
  });
});
