export type {
  DecisionLogConfig,
  EntityMemoryConfig,
  LearningMode,
  UserMemoryConfig,
  UserProfileConfig,
} from "./config.js";
export { LearningMachine, type LearningMachineOptions } from "./machine.js";
export type { DecisionLog, EntityMemory, Memories, MemoryEntry, UserProfile } from "./schemas.js";
export { DecisionLogStore } from "./stores/decision-log.js";
export { EntityMemoryStore } from "./stores/entity-memory.js";
export type { LearningScope, LearningStore, ProcessInput } from "./stores/protocol.js";
export { UserMemoryStore } from "./stores/user-memory.js";
export { UserProfileStore } from "./stores/user-profile.js";
export {
  buildLearningId,
  DEFAULT_LEARNING_NAMESPACE,
  IDENTITY_KEYED_LEARNING_TYPES,
  RESERVED_ENTITY_NAMESPACE,
  sameUser,
  userKeySegment,
} from "./utils.js";
