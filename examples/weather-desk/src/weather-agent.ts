import { Agent, ModelRegistry, openai, tool, type WorkerEnv } from "agno-edge/workers";
import { z } from "zod";

export interface Env extends WorkerEnv {
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
}

// Only the providers registered here are bundled into the Worker.
const models = new ModelRegistry({ openai });

const forecast = tool({
  name: "get_forecast",
  description: "Tomorrow's weather in a city",
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => `sunny in ${city}, 24 degrees`,
});

export function weatherAgent(env: Env): Agent {
  return new Agent({
    id: "weather",
    name: "Weather",
    model: models.resolve(env.MODEL ?? "openai:gpt-4.1-mini", { credentials: models.credentialsFromEnv({ ...env }) }),
    instructions: ["Answer with the forecast tool."],
    tools: [forecast],
  });
}
