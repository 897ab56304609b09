import type { PdfDocument } from "./document.js";
import { isDict, isName, PdfRef, type PdfDict } from "./objects.js";

/** A page and the resources it inherits from its ancestors when it has none of its own. */
export interface PageEntry {
  dict: PdfDict;
  resources?: PdfDict;
  /** the visible area (CropBox, else MediaBox; inheritable too) as [x0, y0, x1, y1] */
  box?: [number, number, number, number];
}

type Box = [number, number, number, number];

async function boxOf(doc: PdfDocument, v: unknown): Promise<Box | undefined> {
  const a = await doc.resolve(v as PdfRef);
  if (!Array.isArray(a) || a.length !== 4 || !a.every((x) => typeof x === "number")) return undefined;
  const [x0, y0, x1, y1] = a as Box;
  return [Math.min(x0, x1), Math.min(y0, y1), Math.max(x0, x1), Math.max(y0, y1)];
}

/** Page trees deeper than this are loops or attacks: a balanced tree of a million pages is ~10 deep. */
const MAX_TREE_DEPTH = 64;

/** The document's pages in order, walking /Pages from the catalog (each node visited once). */
export async function listPages(doc: PdfDocument): Promise<PageEntry[]> {
  const catalog = await doc.dict(doc.trailer.get("Root"));
  const pages: PageEntry[] = [];
  const seen = new Set<unknown>();
  const walk = async (node: unknown, inherited: PdfDict | undefined, depth: number, box?: Box): Promise<void> => {
    const key = node instanceof PdfRef ? node.num : node;
    if (seen.has(key) || depth > MAX_TREE_DEPTH) return;
    seen.add(key);
    const dict = await doc.dict(node as PdfRef);
    if (!dict) return;
    const own = await doc.dict(dict.get("Resources"));
    const resources = own ?? inherited;
    const media = (await boxOf(doc, dict.get("MediaBox"))) ?? box;
    const crop = await boxOf(doc, dict.get("CropBox"));
    const visible: Box | undefined =
      crop && media
        ? [
            Math.max(crop[0], media[0]),
            Math.max(crop[1], media[1]),
            Math.min(crop[2], media[2]),
            Math.min(crop[3], media[3]),
          ]
        : (crop ?? media);
    const kids = await doc.resolve(dict.get("Kids"));
    if (Array.isArray(kids) && !isName(dict.get("Type"), "Page")) {
      for (const kid of kids) await walk(kid, resources, depth + 1, media);
    } else if (isDict(dict)) pages.push({ dict, resources, box: visible });
  };
  await walk(catalog?.get("Pages"), undefined, 0);
  return pages;
}
