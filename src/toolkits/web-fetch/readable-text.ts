import { htmlToText } from "../../knowledge/readers/html-text.js";

/** Page furniture that is not the page's content: menus, banners, footers, forms. */
const FURNITURE = /<(nav|header|footer|aside|form|menu|dialog)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;

/**
 * The readable text of a page, in the spirit of trafilatura: the `<main>` or `<article>` element
 * when the page has one, page furniture dropped, then the HTML reduced to Markdown-ish text.
 */
export function readableText(html: string): { title: string | null; text: string } {
  const { title } = htmlToText(/<title\b[^>]*>[\s\S]*?<\/title\s*>/i.exec(html)?.[0] ?? "");
  const body =
    /<main\b[^>]*>([\s\S]*?)<\/main\s*>/i.exec(html) ?? /<article\b[^>]*>([\s\S]*)<\/article\s*>/i.exec(html);
  const { text } = htmlToText((body ? body[1]! : html).replace(FURNITURE, " "));
  return { title, text };
}
