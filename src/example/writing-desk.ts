import { z } from "zod";
import { Agent } from "../agent/agent.js";
import type { Model } from "../models/model.js";
import { Team } from "../team/team.js";
import { tool } from "../tools/tool.js";

// The writer's one side effect: a person confirms before a draft is published (human in the loop).
const publishDraft = tool({
  name: "publish_draft",
  description: "Publish the finished draft under a title; a person confirms first",
  parameters: z.object({ title: z.string().min(1).max(200) }),
  requiresConfirmation: true,
  execute: ({ title }, ctx) => {
    const published = Array.isArray(ctx.sessionState.published) ? (ctx.sessionState.published as string[]) : [];
    ctx.sessionState.published = [...published, title];
    return `published "${title}"`;
  },
});

/** The example's researcher: gathers the facts a piece needs. */
export function exampleResearcher(model: Model): Agent {
  return new Agent({
    id: "researcher",
    name: "Researcher",
    description: "Lists the key facts on a topic, briefly.",
    model,
    instructions: ["List the three to five facts that matter most, one line each."],
  });
}

/** The example's writer: turns facts into a short piece, and can publish it once a person agrees. */
export function exampleWriter(model: Model): Agent {
  return new Agent({
    id: "writer",
    name: "Writer",
    description: "Writes a short piece from the facts it is given.",
    model,
    instructions: ["Write plainly, in under 150 words.", "Publish only when asked to."],
    tools: [publishDraft],
  });
}

/** The example team `npm run dev` serves: a leader coordinating a researcher and a writer. */
export function exampleWritingDesk(model: Model, opts: { heartbeatSeconds?: number } = {}): Team {
  return new Team({
    id: "writing-desk",
    name: "Writing desk",
    description: "A researcher and a writer: ask for a short piece on any topic.",
    mode: "coordinate",
    model,
    members: [exampleResearcher(model), exampleWriter(model)],
    instructions: ["Have the researcher gather facts, then the writer write from them."],
    heartbeatSeconds: opts.heartbeatSeconds,
  });
}
