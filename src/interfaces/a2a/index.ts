export { A2A, type A2AOptions } from "./a2a.js";
export { A2A_PROTOCOL_VERSION } from "./a2a-wire.js";
