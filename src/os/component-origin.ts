import type { StoredOrigin } from "../agent/stored-origin.js";

/** agno's `is_component`, `current_version` and `stage` of a response: set only for a component built from a stored config. */
export function componentOrigin(stored: StoredOrigin | undefined): {
  is_component: boolean;
  current_version?: number;
  stage?: string;
} {
  return stored
    ? { is_component: true, current_version: stored.version, stage: stored.stage }
    : { is_component: false };
}
