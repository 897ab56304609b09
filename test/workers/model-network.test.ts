import { describe, expect, it } from "vitest";
import { call, form, modelEnv, parseSse, send } from "./worker-client.js";

/**
 * A model connection that breaks, as workerd's fetch reports it ("Network connection lost.", or a
 * 200 whose body is cut): a network failure, retried while nothing of the answer was sent yet.
 */
describe("a model connection lost, through the Worker", () => {
  it("retries a non-streamed run whose model connection drops before answering, and completes", async () => {
    const { env, script } = await modelEnv([{ dropAfterChunks: 0, text: "never sent" }, { text: "recovered" }]);
    const res = await call("/agents/assistant/runs", form({ message: "hi", stream: "false", user_id: "net-a" }), env);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: "COMPLETED", content: "recovered" });
    expect(await script.requests()).toHaveLength(2);
  });

  it("retries a non-streamed run whose model answer is cut after its 200 head, and completes", async () => {
    const { env, script } = await modelEnv([
      { dropAfterChunks: 1, text: "half of this is lost" },
      { text: "recovered" },
    ]);
    const res = await call("/agents/assistant/runs", form({ message: "hi", stream: "false", user_id: "net-b" }), env);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: "COMPLETED", content: "recovered" });
    expect(await script.requests()).toHaveLength(2);
  });

  it("retries a streamed run whose model stream is cut before its first token, and completes", async () => {
    const { env, script } = await modelEnv([
      { dropAfterChunks: 0, text: "never sent" },
      { text: "recovered", chunkSize: 3 },
    ]);
    const res = await send("/agents/assistant/runs", form({ message: "hi", user_id: "net-c" }), env);
    const frames = parseSse(await res.text());
    expect(frames.at(-1)).toMatchObject({ event: "RunCompleted", data: { content: "recovered" } });
    expect(frames.filter((f) => f.event === "RunStarted")).toHaveLength(1);
    expect(await script.requests()).toHaveLength(2);
  });

  it("does not retry a stream cut after text was sent, and says the connection was lost", async () => {
    const { env, script } = await modelEnv([
      { dropAfterChunks: 3, text: "partial answer that is cut", chunkSize: 4 },
      { text: "must not be used" },
    ]);
    const res = await send("/agents/assistant/runs", form({ message: "hi", user_id: "net-d" }), env);
    const frames = parseSse(await res.text());
    expect(frames.some((f) => f.event === "RunContent")).toBe(true);
    const last = frames.at(-1)!;
    expect(last).toMatchObject({ event: "RunError", data: { error_kind: "network" } });
    expect(String(last.data.content)).toMatch(/connection to the model was lost/);
    expect(String(last.data.content)).not.toMatch(/Failed to process successful response/);
    expect(await script.requests()).toHaveLength(1);
  });
});
