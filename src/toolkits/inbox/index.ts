export { AgentMailTools, type AgentMailToolsOptions } from "./agent-mail-tools.js";
export {
  verifyAgentMailWebhook,
  type AgentMailWebhookEvent,
  type VerifyAgentMailWebhookOptions,
} from "./verify-agentmail-webhook.js";
