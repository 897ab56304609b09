/** Escapes the three characters Slack gives meaning to in message text (mentions, links). */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

// Private-use characters mark what is set aside while the rest is rewritten; any already in the
// model's text are dropped first so they cannot be mistaken for a marker.
const HOLE = "\uE000";
const HOLE_END = "\uE001";
const BOLD = "\uE002";
const MARKERS = /[\uE000-\uE002]/g;

/**
 * The model's Markdown as Slack mrkdwn: `**bold**` → `*bold*`, `*italic*`/`_italic_` → `_italic_`,
 * `~~strike~~` → `~strike~`, `[text](https://…)` → `<https://…|text>`, headings bold, list bullets
 * `•`, code spans and blocks kept. `&`, `<` and `>` are escaped everywhere, so text the model
 * writes can never become a mention (`<!channel>`, `<@U…>`) or a link Slack would follow.
 */
export function markdownToMrkdwn(markdown: string): string {
  const held: string[] = [];
  const hold = (s: string) => `${HOLE}${held.push(s) - 1}${HOLE_END}`;
  let text = markdown.replace(MARKERS, "");
  // Code first: nothing inside is formatting.
  text = text.replace(/```[^\n`]*\n?([\s\S]*?)```/g, (_m, code: string) =>
    hold("```" + escapeMrkdwn(code.replace(/\n$/, "")) + "```"),
  );
  text = text.replace(/`([^`\n]+)`/g, (_m, code: string) => hold("`" + escapeMrkdwn(code) + "`"));
  // Links, before escaping: their URL goes between Slack's own angle brackets.
  text = text.replace(/\[([^\]\n]+)\]\(([^()\s]+)\)/g, (m, label: string, url: string) =>
    /^(https?:|mailto:)/i.test(url) ? hold(`<${safeUrl(url)}|${escapeMrkdwn(label).replace(/\|/g, "¦")}>`) : m,
  );
  text = escapeMrkdwn(text);
  text = text
    .replace(/^#{1,6}[ \t]+(.+?)[ \t]*#*$/gm, (_m, title: string) => `${BOLD}${title}${BOLD}`)
    .replace(/^([ \t]*)[-*+][ \t]+/gm, "$1• ")
    .replace(/\*\*(?=\S)([^\n]*?\S)\*\*/g, `${BOLD}$1${BOLD}`)
    .replace(/__(?=\S)([^\n]*?\S)__/g, `${BOLD}$1${BOLD}`)
    .replace(/(^|[^*\w])\*(?=\S)([^*\n]*?\S)\*(?![*\w])/g, "$1_$2_")
    .replace(/~~(?=\S)([^\n]*?\S)~~/g, "~$1~")
    .replace(new RegExp(BOLD, "g"), "*");
  return text.replace(new RegExp(`${HOLE}(\\d+)${HOLE_END}`, "g"), (_m, i: string) => held[Number(i)]!);
}

/** A URL as it may sit in `<url|label>`: the characters that would end it early are percent-encoded. */
function safeUrl(url: string): string {
  return url
    .replace(/[<>|\s]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`)
    .replace(/&/g, "&amp;");
}
