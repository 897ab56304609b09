import type { RunRequirement } from "../../agent/run-output.js";
import type { SlackBlock } from "./slack-api.js";
import { escapeMrkdwn } from "./markdown-to-mrkdwn.js";

/** agno's action ids of the approve and reject buttons (os/interfaces/slack/ids.py). */
export const ACTION_APPROVE = "row_approve";
export const ACTION_REJECT = "row_reject";

/** A button's value: the run and the requirement it answers (Slack gives it back on the press). */
export function encodeButtonValue(runId: string, requirementId: string): string {
  return `${requirementId}|${runId}`;
}

/** The run and requirement a press answers, or null when the value is not one this interface wrote. */
export function decodeButtonValue(value: string): { runId: string; requirementId: string } | null {
  const m = /^([^|]{1,255})\|([^|]{1,255})$/.exec(value);
  return m ? { requirementId: m[1]!, runId: m[2]! } : null;
}

/** What a paused tool call is, as one mrkdwn line: its name and arguments (cut short). */
export function describeRequirement(req: RunRequirement): string {
  const args = JSON.stringify(req.tool_execution.tool_args ?? {});
  const shown = args.length > 500 ? `${args.slice(0, 500)}…` : args;
  return `*${escapeMrkdwn(req.tool_execution.tool_name)}* \`${escapeMrkdwn(shown)}\``;
}

/** The Block Kit message asking to approve or reject one requirement of a paused run. */
export function approvalBlocks(runId: string, req: RunRequirement): SlackBlock[] {
  const value = encodeButtonValue(runId, req.id);
  return [
    {
      type: "section",
      text: {
        type: "mrkdwn",
        text: `Approval needed${req.requires_admin ? " (admin)" : ""}: ${describeRequirement(req)}`,
      },
    },
    {
      type: "actions",
      block_id: `row:${req.id}:confirmation:pending`.slice(0, 255),
      elements: [
        {
          type: "button",
          action_id: ACTION_APPROVE,
          style: "primary",
          text: { type: "plain_text", text: "Approve" },
          value,
        },
        {
          type: "button",
          action_id: ACTION_REJECT,
          style: "danger",
          text: { type: "plain_text", text: "Reject" },
          value,
        },
      ],
    },
  ];
}
