import { HTML_TOKEN } from "./telegram-html.js";

/** Telegram's limit on a message's text, in UTF-16 code units after its entities are parsed. */
export const TELEGRAM_MESSAGE_LIMIT = 4096;

interface Cut {
  /** where in the HTML the chunk ends */
  at: number;
  /** the tags open there (their opening text), closed at the end of this chunk and reopened in the next */
  open: Array<{ name: string; tag: string }>;
}

/**
 * Valid Telegram HTML in messages of at most `limit` visible characters, cut on a paragraph
 * break if there is one in the chunk, else on a line break, else on a space, else anywhere, but
 * never inside a tag or an entity. A cut inside formatting closes its tags and opens them again
 * in the next message, so each message parses on its own.
 */
export function splitTelegramHtml(html: string, limit = TELEGRAM_MESSAGE_LIMIT): string[] {
  const chunks: string[] = [];
  let start = 0;
  let prefix = "";
  let visible = 0;
  let open: Cut["open"] = [];
  let best: [Cut | undefined, Cut | undefined, Cut | undefined] = [undefined, undefined, undefined];
  let last: Cut | undefined;

  const emit = (cut: Cut) => {
    // Whitespace the cut leaves at the end shows as nothing: Telegram trims it.
    const body =
      prefix +
      html.slice(start, cut.at).trimEnd() +
      [...cut.open]
        .reverse()
        .map((t) => `</${t.name}>`)
        .join("");
    if (stripTags(body).trim() !== "") chunks.push(body);
    start = cut.at;
    prefix = cut.open.map((t) => t.tag).join("");
  };

  for (const match of html.matchAll(HTML_TOKEN)) {
    const token = match[0];
    const at = match.index;
    if (token.startsWith("<") && token.length > 1) {
      const name = /^<\/?([a-z-]+)/i.exec(token)![1]!.toLowerCase();
      open = token[1] === "/" ? open.slice(0, -1) : [...open, { name, tag: token }];
      continue;
    }
    const width = token.startsWith("&") ? 1 : token.length;
    if (visible + width > limit) {
      // A cut on a boundary, if the chunk has one; text after it starts the next chunk.
      const cut = best[2] ?? best[1] ?? best[0] ?? last ?? { at, open };
      emit(cut);
      visible = visibleLength(html.slice(cut.at, at));
      best = [undefined, undefined, undefined];
    }
    visible += width;
    const after: Cut = { at: at + token.length, open };
    last = after;
    if (token === "\n") {
      const paragraph = html.slice(0, at).endsWith("\n");
      best = paragraph ? [best[0], best[1], after] : [best[0], after, best[2]];
    } else if (token === " ") best = [after, best[1], best[2]];
  }
  emit({ at: html.length, open: [] });
  return chunks;
}

function stripTags(html: string): string {
  return html.replace(/<[^>]*>/g, "");
}

function visibleLength(html: string): number {
  let n = 0;
  for (const [token] of html.matchAll(HTML_TOKEN)) {
    if (token.startsWith("<") && token.length > 1) continue;
    n += token.startsWith("&") ? 1 : token.length;
  }
  return n;
}
