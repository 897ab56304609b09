import type { Component } from "../agent/component.js";
import { memberId, type MemberLike } from "./member-id.js";
import type { TeamMode } from "./team-mode.js";

/** The members as the leader reads them: one `<member>` element each, sub-teams with their own members inside. */
export function membersBlock(members: readonly Component[], indent = 0): string {
  const pad = " ".repeat(indent);
  let out = "";
  for (const member of members) {
    const m = member as MemberLike;
    const type = m.ref.type === "team" ? ' type="team"' : "";
    out += `${pad}<member id="${memberId(m)}" name="${m.ref.name ?? memberId(m)}"${type}>\n`;
    if (m.description) out += `${pad}  Description: ${m.description}\n`;
    if (m.members) out += membersBlock(m.members, indent + 2);
    out += `${pad}</member>\n`;
  }
  return out;
}

const HOW_TO_RESPOND: Record<TeamMode, string> = {
  coordinate:
    "Mode: coordinate. When the request needs a member's expertise or tools, choose the member(s) that fit, " +
    "give each a self-contained task with `delegate_task_to_member` (the goal, the context it needs, what a good " +
    "result is), then combine their answers into one reply of your own. Answer simple requests yourself. " +
    "Name members by their id only.",
  route:
    "Mode: route. When the request needs a member, pick the single best one and call `delegate_task_to_member` " +
    "once, with a task that keeps the user's full intent: the member's answer goes to the user as it is. " +
    "Answer simple requests yourself. Name members by their id only.",
  broadcast:
    "Mode: broadcast. When the request gains from several perspectives, call `delegate_task_to_members` once " +
    "with a task every member can answer on its own; it reaches all members at the same time. Then merge their " +
    "answers by theme, reconciling where they disagree, rather than listing them one by one.",
  tasks:
    "Mode: tasks. Split the user's goal into tasks (`create_task`, each with a clear title, a self-contained " +
    "description, the best-suited member as assignee, and `depends_on` where one needs another's result). Run " +
    "them with `execute_task`, or `execute_tasks_parallel` for independent ones, review each result, retry or " +
    "re-plan failures, and call `mark_all_complete` with a summary once everything is done. `list_tasks` shows " +
    "progress; `add_task_note` records observations.",
};

/** What the leader's system message says about its team: who the members are and how to work with them. */
export function teamContext(members: readonly Component[], mode: TeamMode, memberInformationTool: boolean): string {
  if (members.length === 0) return "";
  return [
    "You lead a team of AI agents. Delegate to members when their expertise or tools are needed; handle " +
      "straightforward requests yourself.",
    `<team_members>\n${membersBlock(members)}${
      memberInformationTool ? "The `get_member_information` tool lists the members again at any time.\n" : ""
    }</team_members>`,
    `<how_to_respond>\n${HOW_TO_RESPOND[mode]}\n</how_to_respond>`,
  ].join("\n\n");
}
