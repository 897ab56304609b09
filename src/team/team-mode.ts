/**
 * How a team's leader works with its members (agno's TeamMode):
 * - `coordinate`: the leader picks members, writes each a task, and synthesises their answers;
 * - `route`: the leader hands the request to one member, whose answer is the team's;
 * - `broadcast`: every member gets the same task, the leader synthesises;
 * - `tasks`: the leader plans a shared task list and members work through it until it is done.
 */
export type TeamMode = "coordinate" | "route" | "broadcast" | "tasks";

export const TEAM_MODES: readonly TeamMode[] = ["coordinate", "route", "broadcast", "tasks"];
