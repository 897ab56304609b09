/** A safe bound under Slack's 40,000-character limit on a message's text. */
export const SLACK_MESSAGE_LIMIT = 39_000;

const FENCE = "```";

/**
 * Cuts mrkdwn into messages of at most `limit` characters: at a line break when there is one in
 * the second half of the window, else at a space, never inside an escape (`&amp;`) or a link
 * (`<…|…>`); a code block cut in two is closed at the end of one message and reopened in the next.
 */
export function splitMrkdwn(text: string, limit: number = SLACK_MESSAGE_LIMIT): string[] {
  if (text.length <= limit) return [text];
  // Room for a fence closed and reopened around a cut.
  const window = limit - 2 * (FENCE.length + 1);
  const out: string[] = [];
  let rest = text;
  let reopen = false;
  while (rest.length > 0) {
    const head: string = reopen ? `${FENCE}\n` : "";
    if (head.length + rest.length <= limit) {
      out.push(head + rest);
      break;
    }
    const cut = cutPoint(rest, window);
    const piece = rest.slice(0, cut);
    const inCode: boolean = countFences(head + piece) % 2 === 1;
    out.push(head + piece + (inCode ? `\n${FENCE}` : ""));
    reopen = inCode;
    rest = rest.slice(cut);
    if (!inCode) rest = rest.replace(/^\n/, "");
  }
  return out;
}

function countFences(s: string): number {
  return s.split(FENCE).length - 1;
}

function cutPoint(text: string, window: number): number {
  let cut = text.lastIndexOf("\n", window);
  if (cut < window / 2) cut = text.lastIndexOf(" ", window);
  if (cut < window / 2) cut = window;
  // Not inside an entity (`&amp;`, `&lt;`, `&gt;`) or a link or mention (`<…>`).
  const amp = text.lastIndexOf("&", cut - 1);
  if (amp >= 0 && amp > cut - 5 && !text.slice(amp, cut).includes(";")) cut = amp;
  const open = text.lastIndexOf("<", cut - 1);
  if (open >= 0 && text.lastIndexOf(">", cut - 1) < open && open > 0) cut = open;
  // Nor inside a fence's three backticks.
  while (cut > 0 && text[cut - 1] === "`" && text[cut] === "`") cut--;
  return Math.max(cut, 1);
}
