export { Slack, type SlackOptions } from "./slack.js";
export { markdownToMrkdwn, escapeMrkdwn } from "./markdown-to-mrkdwn.js";
export { splitMrkdwn, SLACK_MESSAGE_LIMIT } from "./split-mrkdwn.js";
export { verifySlackSignature } from "./verify-slack-signature.js";
export { SlackApiError } from "./slack-errors.js";
