/**
 * What a button under a paused run's message says when pressed, in Telegram's 64 bytes of
 * `callback_data`: the action, the run id and the requirement's index in the run
 * (`y:<run id>:0` approves the first). It comes back from Telegram unchanged but is never
 * trusted: the press is checked against the stored run and its owner before anything is queued.
 */
export type ButtonAction = "approve" | "reject" | "input";

const CODES: Record<ButtonAction, string> = { approve: "y", reject: "n", input: "i" };
const ACTIONS: Record<string, ButtonAction> = { y: "approve", n: "reject", i: "input" };
const FORMAT = /^([yni]):([A-Za-z0-9_-]{1,56}):(\d{1,3})$/;

export interface ButtonPress {
  action: ButtonAction;
  runId: string;
  index: number;
}

/** The button's data; run ids here are UUIDs, well within the limit. */
export function encodeButton(press: ButtonPress): string {
  const data = `${CODES[press.action]}:${press.runId}:${press.index}`;
  if (!FORMAT.test(data)) throw new RangeError("a run id this long does not fit Telegram's callback_data");
  return data;
}

/** The press a button's data describes, or null when it is not one of ours. */
export function decodeButton(data: string | undefined): ButtonPress | null {
  const m = data === undefined ? null : FORMAT.exec(data);
  return m ? { action: ACTIONS[m[1]!]!, runId: m[2]!, index: Number(m[3]) } : null;
}
