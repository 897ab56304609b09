export { ComponentRegistry, type ComponentRegistryOptions, type RegistryResource } from "./component-registry.js";
export { validateComponentConfig, modelSpecOf, toolNameOf, type ConfigCheck } from "./validate-config.js";
export type { ComponentWriteEvent, ComponentWriteHook } from "./component-write-hook.js";
export { buildStoredAgent } from "./build-agent.js";
export { buildStoredTeam } from "./build-team.js";
export { buildStoredComponent } from "./build-stored-component.js";
export { storedComponentSource } from "./stored-component-source.js";
