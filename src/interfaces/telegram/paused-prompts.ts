import type { RunOutput, RunRequirement, UserInputField } from "../../agent/run-output.js";
import type { StepRequirement } from "../../workflow/step-requirement.js";
import { encodeButton } from "./callback-data.js";
import type { InlineKeyboard } from "./telegram-api.js";
import { escapeHtml } from "./telegram-html.js";

/** One message asking the chat to resolve what a paused run waits on (HTML, with its buttons). */
export interface Prompt {
  html: string;
  keyboard?: InlineKeyboard;
}

/**
 * The messages a paused run posts: one per pending requirement, with Approve and Reject buttons
 * for a confirmation, and a request to reply with the value for an input. A run paused again by
 * a press that resolved one of several requirements posts nothing: the others have their
 * messages already.
 */
export function pausedPrompts(output: RunOutput, componentType: string): Prompt[] {
  if (componentType === "workflow") return workflowPrompts(output);
  const requirements = output.requirements ?? [];
  if (requirements.some((r) => r.resolved)) return [];
  return requirements.flatMap((r, index) => (r.resolved ? [] : [requirementPrompt(output.run_id, r, index)]));
}

function requirementPrompt(runId: string, r: RunRequirement, index: number): Prompt {
  const tool = `<code>${escapeHtml(r.tool_execution.tool_name)}</code>`;
  const who = r.member_agent_name ? ` (${escapeHtml(r.member_agent_name)})` : "";
  const adminOnly = r.requires_admin ? "\n<i>Only an admin may approve this.</i>" : "";
  if (r.kind === "confirmation")
    return {
      html: `<b>Approval needed</b>${who}\nRun ${tool} with:\n<pre>${escapeHtml(argsText(r.tool_execution.tool_args))}</pre>${adminOnly}`,
      keyboard: {
        inline_keyboard: [
          [
            { text: "Approve", callback_data: encodeButton({ action: "approve", runId, index }) },
            { text: "Reject", callback_data: encodeButton({ action: "reject", runId, index }) },
          ],
        ],
      },
    };
  if (r.kind === "user_input") {
    const fields = inputFields(r);
    const list = fields
      .map((f) => `• <code>${escapeHtml(f.name)}</code>${f.description ? `: ${escapeHtml(f.description)}` : ""}`)
      .join("\n");
    const how =
      fields.length === 1
        ? "Reply to this message with the value."
        : "Reply to this message with one line per field: <code>name: value</code>.";
    return {
      html: `<b>Input needed</b>${who} for ${tool}:\n${list}\n${how}`,
      keyboard: {
        inline_keyboard: [[{ text: "How to answer", callback_data: encodeButton({ action: "input", runId, index }) }]],
      },
    };
  }
  return {
    html: `${tool}${who} must be run outside this chat: send its result to run <code>${escapeHtml(runId)}</code> through the AgentOS API.`,
  };
}

/** The fields a user_input requirement asks the person for (the tool's userInputFields). */
export function inputFields(r: RunRequirement): UserInputField[] {
  return r.tool_execution.user_input_schema ?? [];
}

/**
 * The values a reply gives for `fields`: its whole text for one field, `name: value` lines for
 * several; null when a field is missing.
 */
export function parseUserInput(fields: UserInputField[], text: string): Record<string, string> | null {
  const value = text.trim();
  if (!value) return null;
  if (fields.length <= 1) return fields[0] ? { [fields[0].name]: value } : null;
  const given = new Map<string, string>();
  for (const line of value.split("\n")) {
    const m = /^\s*([^:]+?)\s*:\s*(.*?)\s*$/.exec(line);
    if (m) given.set(m[1]!.toLowerCase(), m[2]!);
  }
  const out: Record<string, string> = {};
  for (const f of fields) {
    const v = given.get(f.name.toLowerCase());
    if (v === undefined || v === "") return null;
    out[f.name] = v;
  }
  return out;
}

/** A paused workflow waits on its last step requirement: a confirmation gets buttons, anything else a pointer to the API. */
function workflowPrompts(output: RunOutput): Prompt[] {
  const steps = ((output as { step_requirements?: StepRequirement[] }).step_requirements ?? []) as StepRequirement[];
  const index = steps.length - 1;
  const active = steps[index];
  if (!active) return [];
  const name = escapeHtml(active.step_name ?? active.step_id);
  if (active.requires_confirmation && active.confirmed === null)
    return [
      {
        html: `<b>Approval needed</b>\n${escapeHtml(active.confirmation_message ?? `Run step ${active.step_name ?? active.step_id}?`)}`,
        keyboard: {
          inline_keyboard: [
            [
              { text: "Approve", callback_data: encodeButton({ action: "approve", runId: output.run_id, index }) },
              { text: "Reject", callback_data: encodeButton({ action: "reject", runId: output.run_id, index }) },
            ],
          ],
        },
      },
    ];
  return [
    {
      html: `The workflow waits on step <b>${name}</b>: answer it in the AgentOS UI or API (run <code>${escapeHtml(output.run_id)}</code>).`,
    },
  ];
}

function argsText(args: Record<string, unknown>): string {
  const text = JSON.stringify(args, null, 2) ?? "{}";
  return text.length > 1500 ? `${text.slice(0, 1500)}…` : text;
}
