import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { Role, TaskState, type Message, type Task } from "@a2a-js/sdk";
import { describe, expect, inject, it } from "vitest";
import { startDev, type DevServer } from "../support/dev-server.js";
import { scriptModel } from "../support/model-script.js";

const say = (text: string, taskId = ""): Message => ({
  messageId: crypto.randomUUID(),
  contextId: "",
  taskId,
  role: Role.ROLE_USER,
  parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

/** The example assistant over A2A as `npm run dev` serves it, driven by the official A2A client. */
describe("A2A through npm run dev", () => {
  it("runs, streams, and pauses for a confirmation that a follow-up gives", async () => {
    const script = await scriptModel(inject("modelServerUrl"), [
      { text: "Hello over A2A." },
      { text: "Streamed over A2A." },
      { toolCalls: [{ name: "save_note", arguments: { note: "buy milk" } }] },
      { text: "Saved your note." },
    ]);
    const dataDir = mkdtempSync(join(tmpdir(), "agno-a2a-dev-"));
    let dev: DevServer | undefined;
    try {
      dev = await startDev({
        AGNO_DEV_DATA: dataDir,
        AGNO_DEV_CRON: "off",
        MODEL: "openai:gpt-test",
        OPENAI_BASE_URL: script.baseURL,
        OPENAI_API_KEY: "sk-local",
      });
      const legacyCompat = { enabled: true };
      const factory = new ClientFactory({
        transports: [new JsonRpcTransportFactory({ legacyCompat })],
        cardResolver: new DefaultAgentCardResolver({ legacyCompat }),
      });
      const client = await factory.createFromUrl(`${dev.url}/a2a/agents/assistant/.well-known/agent-card.json`, "");
      const send = async (message: Message) =>
        (await client.sendMessage({ tenant: "", message, configuration: undefined, metadata: undefined })) as Task;

      const done = await send(say("hi"));
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const states = [];
      for await (const e of client.sendMessageStream({
        tenant: "",
        message: say("stream it"),
        configuration: undefined,
        metadata: undefined,
      }))
        if (e.payload?.$case === "statusUpdate") states.push(e.payload.value.status?.state);
      expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);

      const paused = await send(say("note: buy milk"));
      expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const saved = await send(say("yes", paused.id));
      expect(saved).toMatchObject({ id: paused.id, status: { state: TaskState.TASK_STATE_COMPLETED } });
      expect((await client.getTask({ tenant: "", id: paused.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    } finally {
      await dev?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);
});
