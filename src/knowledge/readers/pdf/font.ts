import { CMap } from "./cmap.js";
import type { PdfDocument } from "./document.js";
import { MAC_ROMAN, STANDARD, WIN_ANSI } from "./encodings.js";
import { glyphToUnicode } from "./glyph-names.js";
import { isDict, nameOf, num, PdfStream, type PdfDict, type PdfValue } from "./objects.js";
import { standardWidth } from "./standard-widths.js";

/** One code of a shown string: its text ("" when unmappable), advance (em), and whether it is the single-byte space. */
export interface Glyph {
  text: string;
  width: number;
  space: boolean;
}

const BASE_ENCODINGS: Record<string, string[]> = {
  WinAnsiEncoding: WIN_ANSI,
  MacRomanEncoding: MAC_ROMAN,
  StandardEncoding: STANDARD,
};

/** Ligatures as letters, as search and pdf.js's text both want them. */
const LIGATURES: Record<string, string> = {
  "\ufb00": "ff",
  "\ufb01": "fi",
  "\ufb02": "fl",
  "\ufb03": "ffi",
  "\ufb04": "ffl",
  "\ufb06": "st",
};
const expand = (s: string) => (/[\ufb00-\ufb06]/.test(s) ? s.replace(/[\ufb00-\ufb06]/g, (c) => LIGATURES[c] ?? c) : s);

/**
 * Generated fonts (Type3 fonts especially) name glyphs after their code (`a65`, `g65`, `G41`):
 * when a name's number is the code itself, the code is read as in WinAnsiEncoding.
 */
function numberedGlyph(name: string, code: number): string {
  const dec = /^[A-Za-z]{1,3}(\d{2,3})$/.exec(name);
  const hex = /^G([0-9A-Fa-f]{2})$/.exec(name);
  const same = (dec && Number(dec[1]) === code) || (hex && parseInt(hex[1]!, 16) === code);
  return same ? (WIN_ANSI[code] ?? "") : "";
}

/**
 * A font as text extraction needs it: how a shown string splits into codes, each code's Unicode
 * text (ToUnicode first, then the encoding and its /Differences) and advance width.
 */
export class PdfFont {
  /** code → text, for simple fonts' encodings */
  private encoding?: string[];
  private toUnicode?: CMap;
  /** the encoding CMap of a composite font, for code lengths */
  private codeMap?: CMap;
  private widths = new Map<number, number>();
  private defaultWidth = 0;
  private baseFont = "";
  /** composite fonts whose codes are UTF-16 themselves (the Uni…-UCS2 / UTF16 CMaps) */
  private codesAreUnicode = false;
  /** glyph space to text space: 1/1000, or a Type3 font's matrix */
  private scale = 0.001;
  composite = false;
  vertical = false;
  private hasWidths = false;
  private identity = false;

  static async load(doc: PdfDocument, dict: PdfDict): Promise<PdfFont> {
    const f = new PdfFont();
    f.baseFont = nameOf(dict.get("BaseFont"))?.replace(/^[A-Z]{6}\+/, "") ?? "";
    const subtype = nameOf(dict.get("Subtype"));
    const tu = await doc.resolve(dict.get("ToUnicode"));
    if (tu instanceof PdfStream) {
      const data = await doc.streamData(tu).catch(() => undefined);
      if (data) f.toUnicode = CMap.parse(data);
    }
    if (subtype === "Type0") await f.loadComposite(doc, dict);
    else await f.loadSimple(doc, dict, subtype);
    return f;
  }

  private async loadSimple(doc: PdfDocument, dict: PdfDict, subtype: string | undefined): Promise<void> {
    const enc = await doc.resolve(dict.get("Encoding"));
    const symbolic = /symbol|dingbat/i.test(this.baseFont);
    let base = symbolic ? undefined : subtype === "TrueType" ? WIN_ANSI : STANDARD;
    let differences: PdfValue[] = [];
    const encName = nameOf(enc);
    if (encName) base = BASE_ENCODINGS[encName] ?? base;
    else if (isDict(enc)) {
      const b = nameOf(enc.get("BaseEncoding"));
      if (b && BASE_ENCODINGS[b]) base = BASE_ENCODINGS[b];
      const d = await doc.resolve(enc.get("Differences"));
      if (Array.isArray(d)) differences = d;
    }
    const encoding = base ? base.slice() : new Array<string>(256).fill("");
    let code = 0;
    for (const d of differences) {
      if (typeof d === "number") code = d;
      else {
        const n = nameOf(d);
        if (n !== undefined && code < 256) encoding[code] = glyphToUnicode(n) ?? numberedGlyph(n, code);
        code++;
      }
    }
    this.encoding = encoding.map(expand);
    if (subtype === "Type3") {
      const m = await doc.resolve(dict.get("FontMatrix"));
      if (Array.isArray(m)) this.scale = Math.abs(num(m[0], 0.001)) || 0.001;
    }
    const first = num(await doc.resolve(dict.get("FirstChar")));
    const widths = await doc.resolve(dict.get("Widths"));
    if (Array.isArray(widths)) {
      this.hasWidths = true;
      for (let i = 0; i < widths.length; i++) this.widths.set(first + i, num(await doc.resolve(widths[i])));
    }
    const descriptor = await doc.dict(dict.get("FontDescriptor"));
    this.defaultWidth = num(descriptor?.get("MissingWidth"));
  }

  private async loadComposite(doc: PdfDocument, dict: PdfDict): Promise<void> {
    this.composite = true;
    const enc = await doc.resolve(dict.get("Encoding"));
    const encName = nameOf(enc) ?? "";
    this.vertical = encName.endsWith("-V");
    this.identity = encName.startsWith("Identity-");
    if (enc instanceof PdfStream) {
      const data = await doc.streamData(enc).catch(() => undefined);
      if (data) this.codeMap = CMap.parse(data);
      this.vertical = nameOf(enc.dict.get("WMode")) === "1" || num(enc.dict.get("WMode")) === 1;
    } else if (/UCS2|UTF16/.test(encName)) this.codesAreUnicode = true;
    const descendants = await doc.resolve(dict.get("DescendantFonts"));
    const cid = await doc.dict(Array.isArray(descendants) ? descendants[0] : descendants);
    this.defaultWidth = num(await doc.resolve(cid?.get("DW")), 1000);
    const w = await doc.resolve(cid?.get("W"));
    if (!Array.isArray(w)) return;
    this.hasWidths = true;
    // [c [w1 w2 …]] or [cFirst cLast w], repeated
    for (let i = 0; i < w.length;) {
      const c = num(await doc.resolve(w[i]));
      const next = await doc.resolve(w[i + 1]);
      if (Array.isArray(next)) {
        for (let k = 0; k < next.length; k++) this.widths.set(c + k, num(await doc.resolve(next[k])));
        i += 2;
      } else {
        const last = num(next);
        const width = num(await doc.resolve(w[i + 2]));
        // a range is kept only while small: its widths are a detail, never worth a huge map
        for (let k = c; k <= last && k - c < 65536; k++) this.widths.set(k, width);
        i += 3;
      }
    }
  }

  private width(code: number): number {
    const w = this.widths.get(code);
    if (w !== undefined) return w * this.scale;
    if (!this.hasWidths && !this.composite) return standardWidth(this.baseFont, code) * this.scale;
    return (this.defaultWidth || (this.composite ? 1000 : 500)) * this.scale;
  }

  private text(code: number): string {
    const u = this.toUnicode?.lookup(code);
    if (u !== undefined) return expand(u.replace(/\0/g, ""));
    if (this.composite) return this.codesAreUnicode ? String.fromCharCode(code) : "";
    return this.encoding?.[code] ?? "";
  }

  /** The codes of a shown string. */
  decode(bytes: Uint8Array): Glyph[] {
    const out: Glyph[] = [];
    if (!this.composite) {
      for (const code of bytes) out.push({ text: this.text(code), width: this.width(code), space: code === 32 });
      return out;
    }
    // Identity-H/V codes are two bytes whatever a ToUnicode CMap's codespace claims
    const map = this.codeMap ?? (!this.identity && this.toUnicode?.codespaces.length ? this.toUnicode : undefined);
    for (let i = 0; i < bytes.length;) {
      const n = Math.max(1, Math.min(4, map && !this.codesAreUnicode ? map.codeLength(bytes, i, 2) : 2));
      let code = 0;
      for (let k = 0; k < n; k++) code = code * 256 + (bytes[i + k] ?? 0);
      out.push({ text: this.text(code), width: this.width(code), space: n === 1 && code === 32 });
      i += n;
    }
    return out;
  }
}
