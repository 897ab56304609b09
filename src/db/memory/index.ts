export { MemoryDb, type MemoryDbOptions } from "./memory-db.js";
export { MemoryTables } from "./tables.js";
