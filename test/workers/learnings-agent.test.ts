import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { LearningMachine } from "../../src/learn/machine.js";
import { createModel } from "../../src/models/providers.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { scriptModel } from "../support/model-script.js";
import { form, sdkFetch } from "./worker-client.js";

type Msg = { role: string; content: string };

/**
 * An AgentOS built with the SDK, in workerd: the agent (no db of its own: the OS binds each
 * request's) learns through its LearningMachine, and agno's `/learnings` routes read and change
 * the very rows the agent reads, because both key them by the same ids.
 */
describe("learning through an AgentOS in workerd", () => {
  it("a run's profile and decision are listed by /learnings; a PATCH of the profile reaches the next run's system message", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const user = `learner-${tag}`;
    const script = await scriptModel(env.MODEL_SERVER_URL, [
      {
        toolCalls: [{ name: "log_decision", arguments: { decision: "Greet by name", reasoning: "The user gave it" } }],
      },
      { text: "Hello Sam!" },
      { text: '{"name":"Sam Doe","preferred_name":null}' },
      { text: "Hello again." },
      { text: '{"name":null,"preferred_name":null}' },
    ]);
    const agent = new Agent({
      id: "greeter",
      model: createModel("openai:gpt-test", { credentials: { openai: { baseURL: script.baseURL, apiKey: "k" } } }),
      learning: new LearningMachine({ userProfile: true, decisionLog: true }),
    });
    const fetchOs = sdkFetch(new AgentOS({ agents: [agent], auth: { mode: "none" } }), `learn_${tag}`);
    const first = await fetchOs(
      "/agents/greeter/runs",
      form({ message: "I am Sam Doe", stream: "false", user_id: user }),
    );
    expect(first.status, first.text).toBe(200);
    const listed = JSON.parse(
      (await fetchOs(`/learnings?user_id=${user}&sort_by=learning_type&sort_order=asc`, {})).text,
    );
    expect(listed.data.map((r: { learning_type: string }) => r.learning_type)).toEqual([
      "decision_log",
      "user_profile",
    ]);
    expect(listed.data[0]).toMatchObject({ agent_id: "greeter", content: { decision: "Greet by name" } });
    expect(listed.data[1]).toMatchObject({ learning_id: `user_profile_${user}`, content: { name: "Sam Doe" } });
    const patched = await fetchOs(`/learnings/user_profile_${user}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ content: { user_id: user, name: "Samantha Doe" } }),
    });
    expect(patched.status, patched.text).toBe(200);
    const second = await fetchOs("/agents/greeter/runs", form({ message: "hi", stream: "false", user_id: user }));
    expect(second.status).toBe(200);
    const system = ((await script.requests())[3]!.body.messages as Msg[])[0]!.content;
    expect(system).toContain("Name: Samantha Doe");
    expect(system).toMatch(/- \*\*Greet by name\*\*\n {2}Reasoning: The user gave it/);
    const users = JSON.parse((await fetchOs(`/learnings/users?user_id=${user}`, {})).text);
    expect(users.data).toEqual([{ user_id: user, last_learning_updated_at: expect.any(Number) }]);
  });
});
