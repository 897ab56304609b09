export { MiniMaxTools, type MiniMaxToolsOptions, type MiniMaxVideoModel } from "./minimax-tools.js";
export {
  MINIMAX_VIDEO_JOB_TYPE,
  MINIMAX_VIDEOS_STATE_KEY,
  type MiniMaxVideoJobPayload,
  type MiniMaxVideoResult,
} from "./minimax-video-job.js";
