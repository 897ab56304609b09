import { z } from "zod";
import { Agent } from "../agent/agent.js";
import type { Model } from "../models/model.js";
import { tool } from "../tools/tool.js";

const currentTime = tool({
  name: "get_current_time",
  description: "The current date and time in an IANA time zone",
  parameters: z.object({ timezone: z.string().default("UTC").describe("IANA zone, e.g. Europe/Paris") }),
  execute: ({ timezone }) => {
    try {
      return new Intl.DateTimeFormat("en-GB", { dateStyle: "full", timeStyle: "long", timeZone: timezone }).format(new Date());
    } catch {
      throw new Error(`unknown time zone ${timezone}`);
    }
  },
});

const rollDice = tool({
  name: "roll_dice",
  description: "Roll dice and return each result",
  parameters: z.object({ count: z.number().int().min(1).max(20).default(1), sides: z.number().int().min(2).max(1000).default(6) }),
  execute: ({ count, sides }) => Array.from({ length: count }, () => 1 + Math.floor(Math.random() * sides)),
});

/** The example agent `npm run dev` serves: a model from the environment and two small tools. */
export function exampleAssistant(model: Model): Agent {
  return new Agent({
    id: "assistant",
    name: "Assistant",
    description: "A helpful assistant with a clock and dice.",
    model,
    instructions: ["Answer briefly.", "Use the tools for the time and for randomness; never guess them."],
    tools: [currentTime, rollDice],
    addHistoryToContext: true,
  });
}
