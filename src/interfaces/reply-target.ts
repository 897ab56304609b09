/**
 * Where a run that a chat interface queued is answered: the interface (by its route prefix) and
 * the platform's own coordinates (a Slack channel and thread, a Telegram chat and topic, a
 * WhatsApp number). It travels in the run's job as JSON, so any isolate can answer.
 */
export interface ReplyTarget {
  /** the prefix of the interface that answers, e.g. "/slack" */
  interface: string;
  [key: string]: unknown;
}
