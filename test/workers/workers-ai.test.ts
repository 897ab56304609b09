import { describe, expect, it } from "vitest";
import type { WorkersAIBinding } from "../../src/models/workers-ai-model.js";
import { call, JSON_BODY } from "./worker-client.js";

/**
 * Workers AI cannot run on this machine (its binding always reaches Cloudflare), so this
 * stand-in answers in the binding's documented shapes: `{response, tool_calls, usage}`.
 */
function fakeAI(
  replies: unknown[],
): WorkersAIBinding & { calls: Array<{ model: string; inputs: Record<string, unknown> }> } {
  const calls: Array<{ model: string; inputs: Record<string, unknown> }> = [];
  return {
    calls,
    async run(model, inputs) {
      calls.push({ model, inputs: structuredClone(inputs) });
      const next = replies.shift();
      if (next instanceof Error) throw next;
      if (next === undefined) throw new Error("no reply scripted");
      return next;
    },
  };
}

describe("Workers AI through its binding", () => {
  it("runs the example agent with MODEL=workers-ai:… and the AI binding, tool call included", async () => {
    const ai = fakeAI([
      {
        response: null,
        tool_calls: [{ name: "roll_dice", arguments: { count: 1, sides: 20 } }],
        usage: { prompt_tokens: 30, completion_tokens: 8 },
      },
      { response: "You rolled a number.", usage: { prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 } },
    ]);
    const res = await call(
      "/agents/assistant/runs",
      { method: "POST", headers: JSON_BODY, body: JSON.stringify({ message: "roll a d20", stream: false }) },
      { MODEL: "workers-ai:@cf/meta/llama-3.3-70b-instruct-fp8-fast", AI: ai },
    );
    expect(res.body).toMatchObject({
      status: "COMPLETED",
      content: "You rolled a number.",
      model: "@cf/meta/llama-3.3-70b-instruct-fp8-fast",
      model_provider: "workers-ai",
    });
    expect(res.body.metrics).toMatchObject({ input_tokens: 80, output_tokens: 13 });
    expect(res.body.tools[0]).toMatchObject({ tool_name: "roll_dice", tool_args: { count: 1, sides: 20 } });
    expect(ai.calls[0]!.model).toBe("@cf/meta/llama-3.3-70b-instruct-fp8-fast");
    expect((ai.calls[0]!.inputs.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual([
      "get_current_time",
      "roll_dice",
      "save_note",
      "set_reminder",
      "forget_notes",
      // The Worker binds an R2 bucket, so the example agent offloads large results and can read them back.
      "read_result",
      "search_result",
      // Workers AI embeds too (the binding's default embedding model), so the example has its knowledge base.
      "search_knowledge_base",
    ]);
    const second = ai.calls[1]!.inputs.messages as Array<{ role: string; tool_call_id?: string }>;
    expect(second.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_0" });
  });

  it("says what is missing when MODEL names Workers AI but there is no binding, and classifies binding errors", async () => {
    // A configuration error now: the deployment stays closed and says what is missing (test/workers/env-config.test.ts).
    const missing = await call(
      "/agents/assistant/runs",
      { method: "POST", headers: JSON_BODY, body: JSON.stringify({ message: "hi", stream: false }) },
      { MODEL: "workers-ai:@cf/x" },
    );
    expect(missing).toMatchObject({
      status: 503,
      body: { error_id: "misconfigured", detail: expect.stringMatching(/MODEL names Workers AI.*\[ai\] binding/) },
    });
    // A rate limit is retried (twice by default); one that outlasts the retries ends the run, classified.
    const rateLimit = () => new Error("3040: Capacity temporarily exceeded, rate limit");
    const ai = fakeAI([rateLimit(), rateLimit(), rateLimit()]);
    const limited = await call(
      "/agents/assistant/runs",
      { method: "POST", headers: JSON_BODY, body: JSON.stringify({ message: "hi", stream: false }) },
      { MODEL: "workers-ai:@cf/y", AI: ai },
    );
    expect(limited.body).toMatchObject({ status: "ERROR", error: { type: "ModelProviderError", kind: "rate_limit" } });
    expect(ai.calls).toHaveLength(3);
  });
});
