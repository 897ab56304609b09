/**
 * `agno-edge/workers`: the SDK plus what needs Workers bindings (R2). Kept apart from `agno-edge`
 * because their types (R2Bucket) exist only in the Workers runtime's type set.
 */
export * from "./sdk.js";
export { R2Storage, type R2StorageOptions } from "./offload/r2-storage.js";
export { R2MediaStorage } from "./offload/media-r2-storage.js";
export { durableCodeRunner } from "./codemode/durable-runner.js";
