import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { startDev } from "../support/dev-server.js";
import { makePdf } from "../support/knowledge-pdf.js";
import { scriptModel } from "../support/model-script.js";
import { until } from "../support/until.js";

const JSON_BODY = { "content-type": "application/json" };

/**
 * The example assistant's knowledge base through `npm run dev`: the embedded Postgres with
 * pgvector, the scripted model server answering both the model and (on the same base URL, as the
 * default EMBEDDER uses it) the embeddings, uploads ingested by the JobQueue object.
 */
describe("npm run dev: knowledge", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "agno-dev-kn-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("a PDF and a Markdown file are uploaded, ingested to completed, searched, and the assistant answers from them; a private URL is refused", async () => {
    const script = await scriptModel(inject("modelServerUrl"), [
      { toolCalls: [{ id: "kb-1", name: "search_knowledge_base", arguments: { query: "parking barrier code" } }] },
      { text: "The barrier code is 4711." },
    ]);
    const dev = await startDev({
      AGNO_DEV_DATA: dataDir,
      MODEL: "openai:gpt-test",
      OPENAI_BASE_URL: script.baseURL,
      OPENAI_API_KEY: "sk-local",
    });
    try {
      const config = await (await fetch(`${dev.url}/config`)).json();
      expect(config.knowledge.knowledge_instances).toEqual([
        expect.objectContaining({ id: "assistant-knowledge", table: "agno_knowledge" }),
      ]);
      const upload = async (file: File) => {
        const form = new FormData();
        form.append("file", file);
        const res = await fetch(`${dev.url}/knowledge/content`, { method: "POST", body: form });
        const body = await res.json();
        expect(res.status, JSON.stringify(body)).toBe(202);
        expect(body).toMatchObject({ status: "processing", name: file.name });
        return body.id as string;
      };
      const pdf = await upload(
        new File(
          [new Uint8Array(makePdf([["The Lisbon office opens at eight.", "Visitors sign in at the front desk."]]))],
          "office.pdf",
          { type: "application/pdf" },
        ),
      );
      const md = await upload(
        new File(["# Parking\n\nStaff park on level minus two; the barrier code is 4711.\n"], "parking.md", {
          type: "text/markdown",
        }),
      );
      for (const id of [pdf, md]) {
        const status = await until(
          async () => (await (await fetch(`${dev.url}/knowledge/content/${id}/status`)).json()) as { status: string },
          (s) => s.status !== "processing",
          `content ${id} ingested`,
          { ms: 60_000, every: 500 },
        );
        expect(status, JSON.stringify(status)).toMatchObject({ status: "completed" });
      }
      const search = async (query: string) => {
        const res = await fetch(`${dev.url}/knowledge/search`, {
          method: "POST",
          headers: JSON_BODY,
          body: JSON.stringify({ query, max_results: 3 }),
        });
        expect(res.status).toBe(200);
        return ((await res.json()) as { data: Array<{ content_id: string; content: string }> }).data;
      };
      const office = await search("when does the Lisbon office open");
      expect(office[0]).toMatchObject({ content_id: pdf, content: expect.stringContaining("opens at eight") });
      const parking = await search("barrier code for parking");
      expect(parking[0]).toMatchObject({ content_id: md, content: expect.stringContaining("4711") });

      // The assistant searches its knowledge base: the tool call, what it retrieved, and the references stored on the run.
      const ran = await fetch(`${dev.url}/agents/assistant/runs`, {
        method: "POST",
        headers: JSON_BODY,
        body: JSON.stringify({ message: "What is the parking barrier code?", stream: false, session_id: "kn-dev" }),
      });
      const run = (await ran.json()) as {
        run_id: string;
        content: string;
        status: string;
        tools?: Array<{ tool_name: string; result?: string }>;
        references?: Array<{ query: string; references: Array<{ content: string; name?: string }> }>;
      };
      expect(ran.status, JSON.stringify(run)).toBe(200);
      expect(run).toMatchObject({ status: "COMPLETED", content: "The barrier code is 4711." });
      const call = run.tools?.find((t) => t.tool_name === "search_knowledge_base");
      expect(call?.result).toContain("4711");
      expect(run.references?.[0]).toMatchObject({
        query: "parking barrier code",
        references: expect.arrayContaining([expect.objectContaining({ content: expect.stringContaining("4711") })]),
      });
      const requests = await script.requests();
      expect(requests).toHaveLength(2);
      expect(JSON.stringify(requests[0])).toContain("search_knowledge_base");
      expect(JSON.stringify(requests[1])).toContain("4711");
      const stored = await fetch(`${dev.url}/sessions/kn-dev/runs/${run.run_id}`);
      expect(stored.status).toBe(200);
      expect(((await stored.json()) as { references: unknown[] }).references).toEqual(run.references);

      const refused = new FormData();
      refused.append("url", "http://169.254.169.254/latest/meta-data/");
      const res = await fetch(`${dev.url}/knowledge/content`, { method: "POST", body: refused });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error_id: "unsafe_url" });
    } finally {
      await dev.stop();
    }
  }, 240_000);
});
