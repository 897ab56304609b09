/**
 * `agno-edge/node`: the SDK plus what only Node can run (storage on the local disk). Kept apart
 * from `agno-edge` so a Worker that imports the SDK never pulls in `node:fs`.
 */
export * from "./sdk.js";
export { LocalStorage, type LocalStorageOptions } from "./offload/local-storage.js";
export { LocalMediaStorage } from "./offload/media-local-storage.js";
