import type { Tool } from "./tool.js";

/**
 * Thrown by a tool that reached, inside its own work, a call that needs a person (CodeMode's
 * cell calling a tool that requires confirmation). The run pauses with a requirement for `tool`
 * called with `args`, exactly as if the model had called it; `checkpoint` is stored with the
 * requirement and handed back (as `ctx.resumed`) when the run continues, so the tool can pick up
 * where it stopped instead of repeating what it already did.
 */
export class ToolPause extends Error {
  constructor(
    readonly tool: Tool,
    readonly args: Record<string, unknown>,
    readonly checkpoint: unknown,
  ) {
    super(`${tool.name} needs a person before it runs`);
    this.name = "ToolPause";
  }
}

/** What a paused call gets back when its run continues: its checkpoint and how the person decided. */
export interface ResumedCall {
  checkpoint: unknown;
  kind: "confirmation" | "user_input" | "external_execution";
  /** for a confirmation: true or false */
  confirmed?: boolean | null;
  confirmation_note?: string | null;
  /** the inner call's arguments, with a person's input merged in */
  args: Record<string, unknown>;
  external_execution_result?: string | null;
}
