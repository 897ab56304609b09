import type { RequirementResolution } from "../../agent/hitl.js";
import type { MediaInput } from "../../agent/media.js";
import type { RunRequirement } from "../../agent/run-output.js";
import { BadRequestError } from "../../errors.js";
import type { StepRequirement, StepRequirementResolution } from "../../workflow/step-requirement.js";
import type { RunLike } from "./a2a-task.js";
import type { A2AMessage } from "./a2a-wire.js";

/** A message as a run's input: its text parts (data parts as JSON text) joined by lines, its files as media. */
export function runInputOf(message: A2AMessage): { text: string; media: MediaInput[] | undefined } {
  const texts: string[] = [];
  const media: MediaInput[] = [];
  for (const part of message.parts) {
    if (part.kind === "text") texts.push(part.text);
    else if (part.kind === "data") texts.push(JSON.stringify(part.data));
    else {
      // As agno: a file without a media type is skipped, there is no telling what it is.
      const mimeType = part.file.mimeType;
      if (!mimeType) continue;
      media.push(
        "uri" in part.file
          ? { url: part.file.uri, mimeType, filename: part.file.name }
          : { data: part.file.bytes, mimeType, filename: part.file.name },
      );
    }
  }
  return { text: texts.join("\n"), media: media.length > 0 ? media : undefined };
}

const YES = new Set(["y", "yes", "ok", "okay", "approve", "approved", "confirm", "confirmed", "accept", "sure"]);
const NO = new Set(["n", "no", "reject", "rejected", "deny", "denied", "cancel", "decline"]);

function firstWord(text: string): string {
  return (
    text
      .trim()
      .toLowerCase()
      .split(/[\s.,!;:]+/)[0] ?? ""
  );
}

/** What an answer says: its text, its data parts merged, and whether it reads as a yes. */
interface Answer {
  text: string;
  data: Record<string, unknown>;
  yes: boolean;
  /** the text, when it says more than a bare yes or no (a rejection's reason, a reviewer's feedback) */
  note: string | undefined;
}

function answerOf(message: A2AMessage): Answer {
  const text = message.parts
    .filter((p) => p.kind === "text")
    .map((p) => p.text)
    .join("\n")
    .trim();
  const data = Object.assign({}, ...message.parts.filter((p) => p.kind === "data").map((p) => p.data)) as Record<
    string,
    unknown
  >;
  const word = firstWord(text);
  const yes = typeof data.confirmed === "boolean" ? data.confirmed : YES.has(word);
  const bare = YES.has(word) || NO.has(word);
  const note = text && !(bare && text.split(/\s+/).length === 1) ? text : undefined;
  return { text, data, yes, note };
}

/** A user input's values: the data part's fields the schema names, or the text for the one field left. */
function userInputOf(
  fields: Array<{ name: string; value?: unknown }>,
  answer: Answer,
  what: string,
): Record<string, unknown> {
  const names = fields.map((f) => f.name);
  const given = Object.fromEntries(Object.entries(answer.data).filter(([k]) => names.includes(k)));
  if (Object.keys(given).length > 0) return given;
  const open = fields.filter((f) => f.value === null || f.value === undefined);
  if (open.length === 1 && answer.text) return { [open[0]!.name]: answer.text };
  throw new BadRequestError(
    `${what} needs ${open.map((f) => f.name).join(", ") || "input"}: send a data part with those fields`,
  );
}

function requirementAnswer(r: RunRequirement, answer: Answer): RequirementResolution {
  if (r.kind === "confirmation")
    return {
      id: r.id,
      confirmed: answer.yes,
      ...(!answer.yes && answer.note ? { confirmation_note: answer.note } : {}),
    };
  if (r.kind === "user_input")
    return {
      id: r.id,
      user_input: userInputOf(r.tool_execution.user_input_schema ?? [], answer, r.tool_execution.tool_name),
    };
  const result = answer.text || (Object.keys(answer.data).length > 0 ? JSON.stringify(answer.data) : "");
  if (!result) throw new BadRequestError(`${r.tool_execution.tool_name} waits for its result: send it as text`);
  return { id: r.id, external_execution_result: result };
}

function stepAnswer(r: StepRequirement, answer: Answer): StepRequirementResolution {
  if (r.requires_executor_input)
    return {
      step_id: r.step_id,
      executor_requirements: (r.executor_requirements ?? [])
        .filter((x) => !x.resolved)
        .map((x) => requirementAnswer(x, answer)),
    };
  if (r.requires_route_selection) {
    const chosen = Array.isArray(answer.data.selected_choices)
      ? answer.data.selected_choices.map(String)
      : answer.text
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean);
    return { step_id: r.step_id, selected_choices: chosen };
  }
  if (r.requires_user_input)
    return {
      step_id: r.step_id,
      confirmed: true,
      user_input: userInputOf(r.user_input_schema ?? [], answer, `step ${r.step_name ?? r.step_id}`),
    };
  if (r.requires_output_review)
    return {
      step_id: r.step_id,
      confirmed: answer.yes,
      ...(!answer.yes && answer.note ? { rejection_feedback: answer.note } : {}),
    };
  return { step_id: r.step_id, confirmed: answer.yes };
}

/**
 * The resolutions a follow-up message gives a paused run. A data part `{"resolutions": [...]}`
 * is taken as is (what `POST …/continue` takes: an agent's or team's requirements, a workflow's
 * step requirements). Otherwise the message answers every open requirement: a yes (`yes`, `ok`,
 * `approve`, … or `{"confirmed": true}`) confirms, anything else rejects (its text the reason);
 * user input comes from a data part's fields, or the text when one field is open; an external
 * tool's result is the text.
 */
export function resolutionsOf(run: RunLike, message: A2AMessage): unknown[] {
  const answer = answerOf(message);
  if (Array.isArray(answer.data.resolutions)) return answer.data.resolutions as unknown[];
  if (run.workflow_id !== undefined && !run.agent_id && !run.team_id) {
    const active = run.step_requirements?.at(-1);
    if (!active) throw new BadRequestError("the task waits on a failed step: answer it with POST …/continue");
    return [stepAnswer(active, answer)];
  }
  const open = (run.requirements ?? []).filter((r) => !r.resolved);
  return open.map((r) => requirementAnswer(r, answer));
}
