/**
 * The model's Markdown as Telegram's HTML subset (https://core.telegram.org/bots/api#html-style):
 * bold, italic, strikethrough, inline code, fenced code blocks, links and headings. Telegram
 * refuses a whole message whose HTML it cannot parse, so anything the conversion could get wrong
 * (overlapping markers, say) falls back to the text escaped as it is: an answer always posts.
 */

/** Text safe between tags: Telegram needs only these three escaped (and nothing else decoded). */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Text safe inside a double-quoted attribute value. */
export function escapeAttribute(text: string): string {
  return escapeHtml(text).replace(/"/g, "&quot;");
}

/** Markdown as Telegram HTML, or the text only escaped when the conversion would not parse. */
export function markdownToTelegramHtml(markdown: string): string {
  const converted = convert(markdown);
  return isTelegramHtml(converted) ? converted : escapeHtml(markdown);
}

// Placeholders use private-use characters, which a model's text does not contain in practice;
// any that were there are removed first so they cannot forge a placeholder.
const OPEN = "\uE000";
const CLOSE = "\uE001";

function convert(markdown: string): string {
  const saved: string[] = [];
  const keep = (html: string) => `${OPEN}${saved.push(html) - 1}${CLOSE}`;
  let text = markdown.replace(/[\uE000\uE001]/g, "").replace(/\r\n?/g, "\n");

  // Code first: nothing inside it is formatting.
  text = text.replace(/^```[ \t]*([\w+#.-]*)[ \t]*\n([\s\S]*?)\n?^```[ \t]*$/gm, (_m, lang: string, code: string) =>
    keep(
      lang
        ? `<pre><code class="language-${escapeAttribute(lang)}">${escapeHtml(code)}</code></pre>`
        : `<pre>${escapeHtml(code)}</pre>`,
    ),
  );
  text = text.replace(/`([^`\n]+)`/g, (_m, code: string) => keep(`<code>${escapeHtml(code)}</code>`));
  // Links whose target is a web, mail or Telegram address; anything else stays text.
  text = text.replace(
    /\[([^\]\n]+)\]\(((?:https?:\/\/|mailto:|tg:\/\/)[^\s()]+(?:\([^\s()]*\))?[^\s()]*)\)/g,
    (_m, label: string, href: string) => keep(`<a href="${escapeAttribute(href)}">${escapeHtml(label)}</a>`),
  );

  text = escapeHtml(text);
  text = text.replace(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm, "<b>$1</b>");
  text = text.replace(/^([ \t]*)[-*+][ \t]+/gm, "$1• ");
  text = text.replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, "<b>$1</b>");
  text = text.replace(/(?<![\w\\])__(?=\S)([\s\S]*?\S)__(?!\w)/g, "<b>$1</b>");
  text = text.replace(/~~(?=\S)([\s\S]*?\S)~~/g, "<s>$1</s>");
  text = text.replace(/(?<![\w*\\])\*(?=[^\s*])([^*\n]*?[^\s*\\])\*(?![\w*])/g, "<i>$1</i>");
  text = text.replace(/(?<![\w\\])_(?=[^\s_])([^_\n]*?[^\s_\\])_(?!\w)/g, "<i>$1</i>");

  return text
    .replace(new RegExp(`${OPEN}(\\d+)${CLOSE}`, "g"), (_m, i: string) => saved[Number(i)] ?? "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** The tags Telegram's HTML parse mode knows, and the attributes each may carry. */
const TAGS: Record<string, RegExp | null> = {
  b: null,
  strong: null,
  i: null,
  em: null,
  u: null,
  ins: null,
  s: null,
  strike: null,
  del: null,
  code: /^ class="language-[^"<>&]*"$/,
  pre: null,
  a: /^ href="[^"<>]*"$/,
  blockquote: /^ expandable$/,
  "tg-spoiler": null,
};

/** A tag, an entity, or one character (a surrogate pair is one): the units a message is made of. */
export const HTML_TOKEN =
  /<\/?[a-z-]+(?: [^<>]*)?>|&(?:amp|lt|gt|quot|#\d{1,7}|#x[\da-f]{1,6});|[\uD800-\uDBFF][\uDC00-\uDFFF]|[\s\S]/gi;

/**
 * Whether Telegram would parse `html`: only its tags, nested properly, attributes it allows, and
 * `&` `<` `>` only as entities or tags.
 */
export function isTelegramHtml(html: string): boolean {
  const stack: string[] = [];
  for (const [token] of html.matchAll(HTML_TOKEN)) {
    if (token === "<" || token === ">" || token === "&") return false;
    if (!token.startsWith("<") || token.length === 1) continue;
    const m = /^<(\/?)([a-z-]+)(.*)>$/i.exec(token)!;
    const name = m[2]!.toLowerCase();
    if (!(name in TAGS)) return false;
    if (m[1]) {
      if (stack.pop() !== name || m[3]) return false;
    } else {
      const attrs = TAGS[name];
      if (m[3] && !attrs?.test(m[3])) return false;
      stack.push(name);
    }
  }
  return stack.length === 0;
}
