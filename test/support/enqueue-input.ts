import type { EnqueueRunInput } from "../../src/queue/types.js";

/**
 * A maker of background-run enqueues for the queue's storage tests: each call names a new
 * session and run (`<prefix>-s-N`, `<prefix>-r-N`) for user u1; `base` sets fields for every call
 * (its payload is merged into each), and `extra` overrides any field of one.
 */
export function enqueueInputs(
  prefix: string,
  base: Omit<Partial<EnqueueRunInput>, "payload"> & { payload?: Partial<EnqueueRunInput["payload"]> } = {},
) {
  let n = 0;
  return (extra: Partial<EnqueueRunInput> = {}): EnqueueRunInput => ({
    component_type: "agent",
    component_id: "assistant",
    user_id: "u1",
    max_attempts: 2,
    max_depth: 1000,
    session_name: "hello",
    ...base,
    session_id: `${prefix}-s-${n++}`,
    payload: { run_id: `${prefix}-r-${n++}`, message: "hello", ...base.payload },
    ...extra,
  });
}
