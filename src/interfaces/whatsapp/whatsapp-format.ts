/**
 * Markdown (what models write) as WhatsApp's own formatting: `*bold*`, `_italic_`, `~strike~`,
 * `` `code` `` and ```` ```blocks``` ````. WhatsApp has no escape character, so a marker that is
 * text (a `*` in `2*3*4`, an `_` in `snake_case`) is written as a look-alike that never formats:
 * the model's text can neither format by accident nor be made to.
 */

/** Markers written as text: look-alikes WhatsApp does not read as formatting. */
const LOOKALIKE: Record<string, string> = { "*": "\u2217", _: "\uff3f", "~": "\u223c", "`": "\uff40" };

/** Text with every formatting marker made inert. */
export function escapeWhatsApp(text: string): string {
  return text.replace(/[*_~`]/g, (m) => LOOKALIKE[m]!);
}

/** Inline constructs, in order of precedence; a bare URL is kept byte for byte so it still links. */
const INLINE =
  /`([^`\s](?:[^`\n]*[^`\s])?)`|\*\*(\S(?:[^\n]*?\S)?)\*\*|__(\S(?:[^\n]*?\S)?)__|~~(\S(?:[^\n]*?\S)?)~~|(?<![\w*])\*(\S(?:[^*\n]*?\S)?)\*(?![\w*])|(?<![\w_])_(\S(?:[^_\n]*?\S)?)_(?![\w_])|\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)|(https?:\/\/[^\s<>()]+)/g;

function inline(text: string): string {
  let out = "";
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    out += escapeWhatsApp(text.slice(last, m.index));
    last = m.index + m[0].length;
    const [, code, bold, boldU, strike, italic, italicU, linkText, linkUrl, url] = m;
    if (code !== undefined) out += "`" + code + "`";
    else if (bold !== undefined || boldU !== undefined) out += `*${inline((bold ?? boldU)!)}*`;
    else if (strike !== undefined) out += `~${inline(strike)}~`;
    else if (italic !== undefined || italicU !== undefined) out += `_${inline((italic ?? italicU)!)}_`;
    else if (linkText !== undefined) out += `${inline(linkText)} (${linkUrl})`;
    else out += url;
  }
  return out + escapeWhatsApp(text.slice(last));
}

function line(text: string): string {
  const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(text);
  if (heading) return `*${inline(heading[1]!.replace(/\*\*/g, ""))}*`;
  // WhatsApp's own lists start with "- ", "* " or "1. "; "- " leaves no asterisk to pair with.
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(text);
  if (bullet) return `${bullet[1]}- ${inline(bullet[2]!)}`;
  return inline(text);
}

/** A model's Markdown as a WhatsApp message's text. */
export function markdownToWhatsApp(markdown: string): string {
  const out: string[] = [];
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const fence = /^\s*```/.test(lines[i]!);
    if (!fence) {
      out.push(line(lines[i]!));
      continue;
    }
    // A fenced block is shown monospaced, as written; a fence inside it could only close it early.
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]!); i++)
      body.push(lines[i]!.replace(/```/g, "\uff40\uff40\uff40"));
    out.push("```" + body.join("\n") + "```");
  }
  return out.join("\n");
}

/**
 * The message cut into pieces of at most `limit` characters (UTF-16 code units, so never more
 * than WhatsApp counts), at a paragraph, line or word break where there is one, never inside a
 * surrogate pair; a monospace block that is cut is closed and opened again so both halves render.
 */
export function splitMessage(text: string, limit = 4096): string[] {
  if (limit < 16) throw new RangeError("limit must be at least 16");
  const parts: string[] = [];
  let rest = text;
  let reopen = false;
  while (rest.length > 0) {
    if (reopen) rest = "```" + rest;
    if (rest.length <= limit) {
      parts.push(rest);
      break;
    }
    // Room for a closing fence, should this piece end inside a block.
    const room = limit - 3;
    let cut = Math.max(rest.lastIndexOf("\n\n", room), rest.lastIndexOf("\n", room), rest.lastIndexOf(" ", room));
    if (cut < room / 2) cut = room;
    const code = rest.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut--;
    let piece = rest.slice(0, cut);
    reopen = (piece.match(/```/g)?.length ?? 0) % 2 === 1;
    if (reopen) piece += "```";
    parts.push(piece.replace(/\s+$/, "") || piece);
    rest = rest.slice(cut).replace(/^(\n+| )/, "");
  }
  return parts.filter((p) => p.trim() !== "" && p !== "``````");
}
