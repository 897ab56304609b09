import { expect, it } from "vitest";
import { until } from "../../../support/until.js";
import { JSON_BODY } from "../../worker-client.js";
import { conformingCall } from "../check.js";

/** A multipart form, as agno's clients upload content. */
function form(fields: Record<string, string | File>): RequestInit {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  return { body };
}

/** The example assistant's knowledge base: content uploaded, ingested on the queue, read, searched, changed and deleted. */
export function knowledgeScenarios(): void {
  const tag = crypto.randomUUID().slice(0, 8);

  it("knowledge: upload (202 processing), status to completed, list, get, patch, search, config, sources, delete", async () => {
    const uploaded = await conformingCall("/knowledge/content", {
      method: "POST",
      ...form({
        file: new File(
          [`# Conformance ${tag}\n\nThe lighthouse keeper feeds the gulls at dawn.\n`],
          `guide-${tag}.md`,
          {
            type: "text/markdown",
          },
        ),
        metadata: JSON.stringify({ suite: "conformance", tag }),
        description: "conformance guide",
      }),
    });
    expect(uploaded.status, uploaded.text).toBe(202);
    expect(uploaded.body).toMatchObject({ name: `guide-${tag}.md`, status: "processing" });
    const id = uploaded.body.id as string;
    const done = await until(
      async () => (await conformingCall(`/knowledge/content/${id}/status`)).body,
      (s) => s.status !== "processing",
      "the upload's ingestion",
      { ms: 30_000, every: 250 },
    );
    expect(done, JSON.stringify(done)).toMatchObject({ id, status: "completed", status_message: "" });

    const text = await conformingCall("/knowledge/content", {
      method: "POST",
      ...form({ text_content: `note ${tag}` }),
    });
    expect(text.status).toBe(202);

    const listed = await conformingCall("/knowledge/content?limit=100&sort_by=created_at&sort_order=desc");
    expect(listed.body.data.map((c: { id: string }) => c.id)).toContain(id);
    const got = await conformingCall(`/knowledge/content/${id}`);
    expect(got.body).toMatchObject({ id, status: "completed", type: "text/markdown", metadata: { tag } });

    const patched = await conformingCall(`/knowledge/content/${id}`, {
      method: "PATCH",
      ...form({ description: "patched", metadata: JSON.stringify({ suite: "conformance", tag, v: 2 }) }),
    });
    expect(patched.body).toMatchObject({ id, description: "patched", metadata: { v: 2 } });

    const found = await conformingCall("/knowledge/search", {
      method: "POST",
      headers: JSON_BODY,
      body: JSON.stringify({ query: "who feeds the gulls at dawn", max_results: 5, meta: { limit: 5, page: 1 } }),
    });
    expect(found.body.data.map((d: { content_id: string }) => d.content_id)).toContain(id);

    const config = await conformingCall("/knowledge/config");
    expect(config.body.vector_dbs).toHaveLength(1);
    const kbId = (await conformingCall("/config")).body.knowledge.knowledge_instances[0].id as string;
    expect((await conformingCall(`/knowledge/${kbId}/sources`)).body).toEqual([]);
    expect((await conformingCall(`/knowledge/${kbId}/sources/none/files`)).status).toBe(404);
    expect(
      (
        await conformingCall("/knowledge/remote-content", {
          method: "POST",
          ...form({ config_id: "s3-docs", path: "reports/q1.pdf" }),
        })
      ).status,
    ).toBe(400);

    expect((await conformingCall(`/knowledge/content/${id}`, { method: "DELETE" })).body).toEqual({ id });
    expect((await conformingCall(`/knowledge/content/${id}`)).status).toBe(404);
    expect((await conformingCall("/knowledge/content", { method: "DELETE" })).body).toBe("success");
  });
}
