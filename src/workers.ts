/**
 * `agno-edge/workers`: the SDK plus what needs Workers bindings (R2, Durable Objects). Kept apart
 * from `agno-edge` because their types (R2Bucket) exist only in the Workers runtime's type set.
 */
export * from "./sdk.js";
export { R2Storage, type R2StorageOptions } from "./offload/r2-storage.js";
export { R2MediaStorage } from "./offload/media-r2-storage.js";
export { durableCodeRunner } from "./codemode/durable-runner.js";
export { defineAgentOS, type AgentOSDefinition, type DefinedAgentOS, type FromEnv } from "./worker/define-agent-os.js";
export { readEnvConfig, ConfigurationError, type WorkerEnv, type WorkerConfig } from "./worker/env-config.js";
export { ComponentRegistry } from "./worker/component-registry.js";
export { enqueueBackgroundRun, type BackgroundRequest, type QueueConfig, type QueueTarget } from "./os/background.js";
export { runJobInput, type RunJobRequest } from "./queue/run-job-input.js";
export { xaiSignIn, type XaiSignIn } from "./worker/xai-sign-in.js";
