export { Team } from "./team.js";
export type { TeamOptions } from "./team-options.js";
export { TEAM_MODES, type TeamMode } from "./team-mode.js";
export { TaskList, TASK_LIST_KEY, type Task, type TaskStatus } from "./task-list.js";
