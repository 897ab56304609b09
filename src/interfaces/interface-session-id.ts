/**
 * The agno session of a platform conversation: one per conversation (a Slack thread or DM, a
 * Telegram chat and topic, a WhatsApp number) and user. A session belongs to one user, so in a
 * group conversation each participant has their own session there: their history, memory and
 * isolation stay theirs.
 */
export function interfaceSessionId(type: string, conversation: string, userId: string): string {
  return `${type}:${conversation}:${userId}`;
}
