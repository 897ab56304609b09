import { z } from "zod";
import { tool, type Tool, type ToolContext } from "../tools/tool.js";
import { findMember, memberName } from "./member-id.js";
import { memberAnswer, runMember } from "./run-member.js";
import type { TeamToolHost } from "./team-context.js";
import { membersBlock } from "./team-prompt.js";

/** What a member is sent: the leader's task, or the team's input when the leader does not write one. */
function taskFor(host: TeamToolHost, ctx: ToolContext, task: string): string {
  return host.determineInputForMembers ? task : host.stateOf(ctx).input.message;
}

/**
 * agno's `delegate_task_to_member(member_id, task)`: runs one member (found in sub-teams too) and
 * answers with its reply. In `route` mode it ends the team run with that reply as the team's.
 */
export function delegateToMemberTool(host: TeamToolHost, respondDirectly: boolean): Tool {
  return tool({
    name: "delegate_task_to_member",
    description:
      "Delegate a task to one team member. Describe clearly what the member should achieve and the expected output.",
    parameters: z.object({
      member_id: z
        .string()
        .describe("The ID of the member to delegate the task to: the member's ID only, not prefixed with the team's."),
      task: z.string().describe("A clear and concise description of the task the member should achieve."),
    }),
    stopAfterToolCall: respondDirectly,
    execute: async ({ member_id, task }, ctx) => {
      const member = findMember(host.members, member_id);
      if (!member)
        return `Member with ID ${member_id} not found in the team or any subteams. Please choose the correct member from the list of members:\n\n${membersBlock(host.members)}`;
      const state = host.stateOf(ctx);
      const output = await runMember(member, taskFor(host, ctx, task), ctx, state, host.streamMemberEvents);
      return memberAnswer(member, output);
    },
  });
}

/**
 * agno's `delegate_task_to_members(task)` (broadcast): every member gets the task at the same
 * time; the answer lists each member's reply under its name.
 */
export function delegateToMembersTool(host: TeamToolHost): Tool {
  return tool({
    name: "delegate_task_to_members",
    description:
      "Delegate a task to all team members at once and collect their responses. Describe clearly what each member should achieve and the expected output.",
    parameters: z.object({
      task: z.string().describe("A clear and concise description of the task to send to every member."),
    }),
    execute: async ({ task }, ctx) => {
      const state = host.stateOf(ctx);
      const runs = await Promise.allSettled(
        host.members.map((m) => runMember(m, taskFor(host, ctx, task), ctx, state, host.streamMemberEvents)),
      );
      if (ctx.signal.aborted) throw ctx.signal.reason;
      return runs
        .map((settled, i) => {
          const member = host.members[i]!;
          const name = memberName(member);
          if (settled.status === "rejected") return `Agent ${name}: Error - ${errorText(settled.reason)}`;
          if (settled.value.status === "PAUSED") return `Agent ${name}: Requires human input before continuing.`;
          try {
            return `Agent ${name}: ${memberAnswer(member, settled.value)}`;
          } catch (error) {
            return `Agent ${name}: Error - ${errorText(error)}`;
          }
        })
        .join("\n\n");
    },
  });
}

/** agno's `get_member_information`: the members, as the system message lists them. */
export function memberInformationTool(host: TeamToolHost): Tool {
  return tool({
    name: "get_member_information",
    description: "Get information about the members of the team, including their IDs, names, and roles.",
    parameters: z.object({}),
    execute: () => membersBlock(host.members),
  });
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));
