import { defineAgentOS } from "agno-edge/workers";
import { weatherAgent, type Env } from "./weather-agent.js";

const os = defineAgentOS({ name: "weather desk", agents: (env: Env) => [weatherAgent(env)] });

export default os;
export const { JobQueue, CodeModeSession } = os;
