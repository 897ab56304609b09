import { expect, it } from "vitest";
import { JSON_BODY } from "../../worker-client.js";
import { nestedSpans, traceAt, traceRow, writeTraces } from "../../trace-seed.js";
import { conformingCall } from "../check.js";

const search = (body: unknown): RequestInit => ({ method: "POST", headers: JSON_BODY, body: JSON.stringify(body) });

/**
 * agno's trace routes (os/routers/traces) on traces written through the Db port: every answer
 * parsed strictly with agno's TraceSummary, TraceDetail, TraceNode, TraceSessionStats and
 * FilterSchemaResponse, and the refusals with agno's error body.
 */
export function tracesScenarios(): void {
  const tag = crypto.randomUUID().slice(0, 8);
  const traceId = `trc${tag}`;
  const user = `conformance-traces-${tag}`;

  it("a trace: listed, read as a tree and as one span, summed per session, searched; the filter schema", async () => {
    await writeTraces(
      [
        traceRow(traceId, { user_id: user, session_id: `${tag}-s`, run_id: `${tag}-r` }),
        traceRow(`${traceId}w`, {
          user_id: user,
          name: "Blog_Post.run",
          agent_id: null,
          workflow_id: "blog-post",
          session_id: `${tag}-s`,
          start_time: traceAt(10),
          end_time: traceAt(11),
          created_at: traceAt(10),
        }),
      ],
      [
        ...nestedSpans(traceId, "conformance question"),
        {
          ...nestedSpans(`${traceId}w`, "write a post")[0]!,
          name: "Blog_Post.run",
          attributes: {
            "openinference.span.kind": "CHAIN",
            "input.value": "write a post",
            "agno.workflow.description": "drafts a post",
            "agno.workflow.steps_count": 1,
            "agno.workflow.step_types": ["Step"],
          },
        },
        {
          ...nestedSpans(`${traceId}w`, "write a post")[1]!,
          parent_span_id: `${traceId}w-root`,
          name: "draft",
          attributes: { "openinference.span.kind": "AGENT", "output.value": "the post" },
        },
      ],
    );
    const listed = await conformingCall(`/traces?user_id=${user}`);
    expect(listed.body.data.map((t: { trace_id: string }) => t.trace_id)).toEqual([`${traceId}w`, traceId]);
    const detail = await conformingCall(`/traces/${traceId}`);
    expect(detail.body.tree[0].spans[0].spans[0].id).toBe(`${traceId}-tool`);
    // a workflow's trace takes its output from its last step, and types its steps
    const workflow = await conformingCall(`/traces/${traceId}w`);
    expect(workflow.body).toMatchObject({ output: "the post", workflow_id: "blog-post" });
    expect(workflow.body.tree[0]).toMatchObject({
      type: "WORKFLOW",
      metadata: { description: "drafts a post", steps_count: 1, step_types: ["Step"] },
      spans: [{ name: "draft", type: "AGENT", step_type: "Step" }],
    });
    const span = await conformingCall(`/traces/${traceId}?span_id=${traceId}-llm`);
    expect(span.body).toMatchObject({ type: "LLM", metadata: { model: "gpt-test" } });
    expect((await conformingCall(`/traces/${traceId}?span_id=none-${tag}`)).status).toBe(404);
    expect((await conformingCall(`/traces/none-${tag}`)).status).toBe(404);
    const stats = await conformingCall(`/trace_session_stats?user_id=${user}`);
    expect(stats.body.data).toMatchObject([{ session_id: `${tag}-s`, total_traces: 2, workflow_id: "blog-post" }]);
    expect((await conformingCall("/trace_session_stats?start_time=soon")).status).toBe(400);
    const filter = { op: "EQ", key: "user_id", value: user };
    const runs = await conformingCall("/traces/search", search({ filter }));
    expect(runs.body.meta.total_count).toBe(2);
    const sessions = await conformingCall("/traces/search", search({ filter, group_by: "session" }));
    expect(sessions.body.data).toHaveLength(1);
    expect((await conformingCall("/traces/search", search({ filter: { op: "MATCHES" } }))).status).toBe(400);
    expect((await conformingCall("/traces?end_time=later")).status).toBe(400);
    const schema = await conformingCall("/traces/filter-schema");
    expect(schema.body.fields).toHaveLength(13);
  });
}
