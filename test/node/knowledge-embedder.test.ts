import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EmbedderError } from "../../src/knowledge/errors.js";
import { openAIEmbedder, WorkersAIEmbedder } from "../../src/knowledge/embedders/index.js";
import { hashedVector, startEmbeddingServer, type EmbeddingServer } from "../support/embedding-server.js";

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe("embedders", () => {
  let server: EmbeddingServer;
  beforeAll(async () => {
    server = await startEmbeddingServer();
  });
  afterAll(() => server.stop());
  beforeEach(() => server.reset());

  it("the scripted vectors put texts sharing words nearer than unrelated ones", () => {
    const a = hashedVector("refunds take five days", 64);
    const b = hashedVector("how many days do refunds take", 64);
    const c = hashedVector("the office cat sleeps on keyboards", 64);
    expect(cosine(a, b)).toBeGreaterThan(cosine(a, c) + 0.2);
    expect(hashedVector("same text", 64)).toEqual(hashedVector("same text", 64));
  });

  it("OpenAI's provider package over the wire: batches, sends dimensions, returns one vector per text", async () => {
    const embedder = openAIEmbedder({ baseURL: server.baseURL, apiKey: "k", dimensions: 32, batchSize: 2 });
    expect(embedder.id).toBe("openai:text-embedding-3-small");
    const { embeddings, usage } = await embedder.embed(["one", "two", "three"]);
    expect(embeddings).toEqual([hashedVector("one", 32), hashedVector("two", 32), hashedVector("three", 32)]);
    expect(server.requests.map((r) => [r.model, r.input, r.dimensions])).toEqual([
      ["text-embedding-3-small", ["one", "two"], 32],
      ["text-embedding-3-small", ["three"], 32],
    ]);
    expect(usage?.tokens).toBeGreaterThan(0);
  });

  it("retries a 429 and a 503 as model calls do, then succeeds", async () => {
    const embedder = openAIEmbedder({ baseURL: server.baseURL, apiKey: "k", dimensions: 16, maxRetries: 2 });
    server.failNext(429, 1);
    await expect(embedder.embed(["a"])).resolves.toMatchObject({ embeddings: [hashedVector("a", 16)] });
    server.failNext(503, 1);
    await expect(embedder.embed(["b"])).resolves.toMatchObject({ embeddings: [hashedVector("b", 16)] });
    expect(server.requests).toHaveLength(4);
  });

  it("gives up after its retries, and at once on a 400, with an EmbedderError", async () => {
    const embedder = openAIEmbedder({ baseURL: server.baseURL, apiKey: "k", dimensions: 16, maxRetries: 1 });
    server.failNext(500, 5);
    await expect(embedder.embed(["a"])).rejects.toBeInstanceOf(EmbedderError);
    expect(server.requests).toHaveLength(2);
    server.reset();
    server.failNext(400, 1);
    await expect(embedder.embed(["a"])).rejects.toThrow(/embedding failed/);
    expect(server.requests).toHaveLength(1);
  });

  it("refuses vectors of the wrong length", async () => {
    // the server answers its default 64 dimensions when none is sent (ada-002 sends none)
    const embedder = openAIEmbedder({ baseURL: server.baseURL, apiKey: "k", model: "text-embedding-ada-002" });
    await expect(embedder.embed(["a"])).rejects.toThrow(/64 dimensions, expected 1536/);
  });

  it("Workers AI through the binding: {text} in, {data} out, batched", async () => {
    const calls: unknown[] = [];
    const binding = {
      run: async (model: string, inputs: Record<string, unknown>) => {
        calls.push([model, inputs]);
        return { shape: [1, 4], data: (inputs.text as string[]).map((t) => hashedVector(t, 4)) };
      },
    };
    const embedder = new WorkersAIEmbedder(binding, "@cf/baai/bge-small-en-v1.5", { dimensions: 4, batchSize: 2 });
    const { embeddings } = await embedder.embed(["x", "y", "z"]);
    expect(embeddings).toHaveLength(3);
    expect(calls).toEqual([
      ["@cf/baai/bge-small-en-v1.5", { text: ["x", "y"] }],
      ["@cf/baai/bge-small-en-v1.5", { text: ["z"] }],
    ]);
    expect(new WorkersAIEmbedder(binding).dimensions).toBe(768);
  });
});
