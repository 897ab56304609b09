/**
 * The reply ids of the Approve and Reject buttons of a paused run. WhatsApp hands the id back in
 * the `button_reply` of the press, so it carries everything the continue needs: what is
 * resolved (an agent's or team's requirement, or a workflow's step), the decision, the run and
 * the requirement. Any other id (a button a tool sent) is not ours and is read as text.
 */

/** WhatsApp's bound on a reply button's id. */
export const MAX_BUTTON_ID = 256;

export interface ButtonPress {
  /** `requirement`: an agent's or team's tool requirement; `step`: a workflow step's */
  kind: "requirement" | "step";
  confirmed: boolean;
  runId: string;
  /** the requirement's id, or the step's `step_id` */
  id: string;
}

const KIND = { requirement: "r", step: "s" } as const;

/** The reply id of a press, or undefined when it would not fit WhatsApp's bound. */
export function buttonId(press: ButtonPress): string | undefined {
  const id = `agno:${KIND[press.kind]}${press.confirmed ? "y" : "n"}:${press.runId}:${press.id}`;
  return id.length <= MAX_BUTTON_ID ? id : undefined;
}

/** The press a reply id stands for, or undefined when the id is not one of ours. */
export function parseButtonId(id: string): ButtonPress | undefined {
  const m = /^agno:([rs])([yn]):([^:\s]{1,64}):([^\s][^\u0000-\u001f]{0,190})$/.exec(id);
  if (!m) return undefined;
  return { kind: m[1] === "r" ? "requirement" : "step", confirmed: m[2] === "y", runId: m[3]!, id: m[4]! };
}
