import { describe, expect, it, vi } from "vitest";
import { exampleKnowledge } from "../../src/example/knowledge.js";
import type { Embedder } from "../../src/knowledge/embedder.js";

// A public-looking name that resolves to loopback: what a DNS rebinding host answers.
vi.mock("node:dns/promises", () => ({
  lookup: async (host: string) => (host === "rebind.example" ? [{ address: "127.0.0.1", family: 4 }] : []),
}));

const embedder: Embedder = {
  id: "none",
  dimensions: 3,
  embed: async (texts) => ({ embeddings: texts.map(() => [1, 0, 0]) }),
};

describe("the example knowledge's URL fetcher on Node", () => {
  it("resolves host names: one resolving to loopback is refused", async () => {
    const kb = exampleKnowledge(embedder);
    const fetcher = (kb as unknown as { opts: { fetcher: (u: string) => Promise<unknown> } }).opts.fetcher;
    await expect(fetcher("http://rebind.example/doc.md")).rejects.toThrow(/resolves to a private/);
  });
});
