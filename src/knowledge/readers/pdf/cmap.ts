import { glyphToUnicode } from "./glyph-names.js";
import { Lexer } from "./lexer.js";
import { PdfKeyword, PdfName, type PdfValue } from "./objects.js";

/** A range of codes of one byte length (`<00> <FF>` in begincodespacerange). */
interface Codespace {
  bytes: number;
  low: Uint8Array;
  high: Uint8Array;
}

interface UnicodeRange {
  bytes: number;
  low: number;
  high: number;
  /** the first code's text, later codes adding their offset to its last UTF-16 unit… */
  start?: string;
  /** …or one text per code (the array form) */
  each?: string[];
}

/** Decodes a CMap's destination string: UTF-16BE (a lone byte read as itself). */
export function utf16be(b: Uint8Array): string {
  if (b.length === 1) return String.fromCharCode(b[0]!);
  let s = "";
  for (let i = 0; i + 1 < b.length; i += 2) s += String.fromCharCode((b[i]! << 8) | b[i + 1]!);
  return s;
}

const codeOf = (b: Uint8Array): number => {
  let v = 0;
  for (const x of b) v = v * 256 + x;
  return v;
};

/**
 * A CMap read for text: its codespace ranges (how many bytes each code of a string takes) and,
 * for a ToUnicode CMap, the text of each code (bfchar, bfrange in both forms). Ranges are kept as
 * ranges, so a hostile `<0000> <FFFFFFFF>` range costs nothing.
 */
export class CMap {
  readonly codespaces: Codespace[] = [];
  private readonly chars = new Map<number, string>();
  private readonly ranges: UnicodeRange[] = [];
  private readonly charBytes = new Map<number, number>();

  static parse(data: Uint8Array): CMap {
    const cmap = new CMap();
    const lx = new Lexer(data);
    const operands: PdfValue[] = [];
    let mode = "";
    for (let t = lx.next(); t !== undefined; t = lx.next()) {
      if (!(t instanceof PdfKeyword)) {
        if (mode) operands.push(t);
        continue;
      }
      switch (t.word) {
        case "begincodespacerange":
        case "beginbfchar":
        case "beginbfrange":
          mode = t.word;
          operands.length = 0;
          break;
        case "endcodespacerange":
          for (let i = 0; i + 1 < operands.length; i += 2) {
            const low = operands[i];
            const high = operands[i + 1];
            if (low instanceof Uint8Array && high instanceof Uint8Array && low.length === high.length && low.length > 0)
              cmap.codespaces.push({ bytes: low.length, low, high });
          }
          mode = "";
          break;
        case "endbfchar":
          for (let i = 0; i + 1 < operands.length; i += 2) {
            const src = operands[i];
            const dst = operands[i + 1];
            if (!(src instanceof Uint8Array)) continue;
            const text =
              dst instanceof Uint8Array ? utf16be(dst) : dst instanceof PdfName ? glyphToUnicode(dst.name) : undefined;
            if (text !== undefined) cmap.setChar(src, text);
          }
          mode = "";
          break;
        case "endbfrange":
          for (let i = 0; i + 2 < operands.length; i += 3) {
            const low = operands[i];
            const high = operands[i + 1];
            const dst = operands[i + 2];
            if (!(low instanceof Uint8Array) || !(high instanceof Uint8Array)) continue;
            const range: UnicodeRange = { bytes: low.length, low: codeOf(low), high: codeOf(high) };
            if (dst instanceof Uint8Array) range.start = utf16be(dst);
            else if (Array.isArray(dst)) range.each = dst.map((d) => (d instanceof Uint8Array ? utf16be(d) : ""));
            else continue;
            cmap.ranges.push(range);
          }
          mode = "";
          break;
        default:
          if (t.word.startsWith("end")) mode = "";
      }
    }
    return cmap;
  }

  private setChar(src: Uint8Array, text: string): void {
    const code = codeOf(src);
    this.chars.set(code, text);
    this.charBytes.set(code, src.length);
  }

  get empty(): boolean {
    return this.chars.size === 0 && this.ranges.length === 0;
  }

  /** The text of a code, or undefined when the CMap does not map it. */
  lookup(code: number): string | undefined {
    const c = this.chars.get(code);
    if (c !== undefined) return c;
    for (const r of this.ranges) {
      if (code < r.low || code > r.high) continue;
      const k = code - r.low;
      if (r.each) return r.each[k];
      const s = r.start!;
      if (!s) return undefined;
      const last = s.charCodeAt(s.length - 1) + k;
      return s.slice(0, -1) + String.fromCharCode(last & 0xffff);
    }
    return undefined;
  }

  /**
   * The byte length of the code starting at `pos`: the codespace range it falls in, else the
   * shortest length with a range for its first byte, else `fallback`.
   */
  codeLength(bytes: Uint8Array, pos: number, fallback: number): number {
    let partial = 0;
    for (const cs of this.codespaces) {
      if (pos + cs.bytes > bytes.length) continue;
      let ok = true;
      for (let i = 0; i < cs.bytes && ok; i++) ok = bytes[pos + i]! >= cs.low[i]! && bytes[pos + i]! <= cs.high[i]!;
      if (ok) return cs.bytes;
      if (!partial && bytes[pos]! >= cs.low[0]! && bytes[pos]! <= cs.high[0]!) partial = cs.bytes;
    }
    return partial || fallback;
  }
}
