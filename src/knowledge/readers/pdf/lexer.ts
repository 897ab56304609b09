import { hexValue } from "./codecs.js";
import { PdfKeyword, PdfName, PdfRef, type PdfDict, type PdfValue } from "./objects.js";

/** Nesting deeper than this in one object is refused: real files nest a handful of levels. */
const MAX_NESTING = 64;

const WHITE = new Uint8Array(256);
for (const c of [0, 9, 10, 12, 13, 32]) WHITE[c] = 1;
const DELIM = new Uint8Array(256);
for (const c of "()<>[]{}/%") DELIM[c.charCodeAt(0)] = 1;

/** Tokens that end a container; returned by `next()` as themselves. */
const END_ARRAY = Symbol("]");
const END_DICT = Symbol(">>");
type Token = PdfValue | PdfKeyword | typeof END_ARRAY | typeof END_DICT | undefined;

/** Thrown on malformed syntax the lexer cannot step over. */
export class PdfSyntaxError extends Error {}

/**
 * The PDF tokenizer and object parser, over a byte range. `next()` reads one whole object
 * (arrays and dictionaries included; `N G R` becomes a PdfRef) or a keyword; undefined at the end.
 * Lenient as readers must be: a stray `)` or `>` is skipped, a malformed number reads as 0.
 */
export class Lexer {
  pos: number;
  constructor(
    readonly buf: Uint8Array,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  skipSpace(): void {
    const b = this.buf;
    while (this.pos < this.end) {
      const c = b[this.pos]!;
      if (WHITE[c]) this.pos++;
      else if (c === 37 /* % */) {
        while (this.pos < this.end && b[this.pos] !== 10 && b[this.pos] !== 13) this.pos++;
      } else break;
    }
  }

  /**
   * Steps over an inline image's data, just after its `ID`: binary bytes up to an `EI` that stands
   * alone between whitespace (the data has no length of its own).
   */
  skipInlineImageData(): void {
    const b = this.buf;
    let p = this.pos + 1;
    while (p + 1 < this.end) {
      if (b[p] === 0x45 && b[p + 1] === 0x49 && WHITE[b[p - 1]!] && (p + 2 >= this.end || WHITE[b[p + 2]!])) {
        this.pos = p + 2;
        return;
      }
      p++;
    }
    this.pos = this.end;
  }

  /** The next object or keyword; containers read whole. */
  next(): PdfValue | PdfKeyword | undefined {
    const t = this.token(0);
    if (t === END_ARRAY || t === END_DICT) return this.next();
    return t;
  }

  private token(depth: number): Token {
    if (depth > MAX_NESTING) throw new PdfSyntaxError("objects nested too deeply");
    this.skipSpace();
    if (this.pos >= this.end) return undefined;
    const b = this.buf;
    const c = b[this.pos]!;
    switch (c) {
      case 0x28 /* ( */:
        return this.literalString();
      case 0x2f /* / */:
        return this.name();
      case 0x5b /* [ */: {
        this.pos++;
        return this.array(depth);
      }
      case 0x5d /* ] */:
        this.pos++;
        return END_ARRAY;
      case 0x3c /* < */:
        if (b[this.pos + 1] === 0x3c) {
          this.pos += 2;
          return this.dict(depth);
        }
        return this.hexString();
      case 0x3e /* > */:
        this.pos += b[this.pos + 1] === 0x3e ? 2 : 1;
        return END_DICT;
      case 0x29 /* ) */:
      case 0x7b /* { */:
      case 0x7d /* } */:
        this.pos++;
        return new PdfKeyword(String.fromCharCode(c));
    }
    const start = this.pos;
    while (this.pos < this.end && !WHITE[b[this.pos]!] && !DELIM[b[this.pos]!]) this.pos++;
    const word = String.fromCharCode.apply(null, b.subarray(start, this.pos) as unknown as number[]);
    if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) return this.number(word);
    if (word === "true") return true;
    if (word === "false") return false;
    if (word === "null") return null;
    return new PdfKeyword(word);
  }

  /** A number, or `N G R` when an integer is followed by an integer and R. */
  private number(word: string): Token {
    let n = Number(word);
    if (!Number.isFinite(n)) n = parseFloat(word.replace(/^[+-]+/, (s) => s[s.length - 1]!)) || 0;
    if (!Number.isInteger(n) || n < 0) return n;
    // look ahead for `G R` without consuming anything when it is not there
    const b = this.buf;
    let p = this.pos;
    if (p >= this.end || !WHITE[b[p]!]) return n;
    while (p < this.end && WHITE[b[p]!]) p++;
    const g = p;
    while (p < this.end && b[p]! >= 0x30 && b[p]! <= 0x39) p++;
    if (p === g || p >= this.end || !WHITE[b[p]!]) return n;
    const gen = Number(String.fromCharCode.apply(null, b.subarray(g, p) as unknown as number[]));
    while (p < this.end && WHITE[b[p]!]) p++;
    if (b[p] !== 0x52 /* R */ || (p + 1 < this.end && !WHITE[b[p + 1]!] && !DELIM[b[p + 1]!])) return n;
    this.pos = p + 1;
    return new PdfRef(n, gen);
  }

  private array(depth: number): PdfValue[] {
    const out: PdfValue[] = [];
    for (;;) {
      const t = this.token(depth + 1);
      if (t === undefined || t === END_ARRAY) return out;
      if (t === END_DICT || t instanceof PdfKeyword) continue;
      out.push(t);
    }
  }

  private dict(depth: number): PdfDict {
    const out: PdfDict = new Map();
    let key: string | undefined;
    for (;;) {
      const t = this.token(depth + 1);
      if (t === undefined || t === END_DICT) return out;
      if (t === END_ARRAY || t instanceof PdfKeyword) continue;
      if (key === undefined) {
        if (t instanceof PdfName) key = t.name;
      } else {
        // `null` values are as if the key were absent (ISO 32000 7.3.7)
        if (t !== null) out.set(key, t);
        key = undefined;
      }
    }
  }

  private name(): PdfName {
    const b = this.buf;
    this.pos++;
    let s = "";
    while (this.pos < this.end && !WHITE[b[this.pos]!] && !DELIM[b[this.pos]!]) {
      const c = b[this.pos++]!;
      if (c === 0x23 /* # */ && this.pos + 1 < this.end) {
        const h = parseInt(String.fromCharCode(b[this.pos]!, b[this.pos + 1]!), 16);
        if (!Number.isNaN(h)) {
          s += String.fromCharCode(h);
          this.pos += 2;
          continue;
        }
      }
      s += String.fromCharCode(c);
    }
    return PdfName.of(s);
  }

  private literalString(): Uint8Array {
    const b = this.buf;
    this.pos++;
    const out: number[] = [];
    let nest = 1;
    while (this.pos < this.end) {
      let c = b[this.pos++]!;
      if (c === 0x28) nest++;
      else if (c === 0x29 && --nest === 0) break;
      else if (c === 0x5c /* \ */) {
        if (this.pos >= this.end) break;
        c = b[this.pos++]!;
        switch (c) {
          case 0x6e:
            c = 10;
            break;
          case 0x72:
            c = 13;
            break;
          case 0x74:
            c = 9;
            break;
          case 0x62:
            c = 8;
            break;
          case 0x66:
            c = 12;
            break;
          case 13:
            if (b[this.pos] === 10) this.pos++;
            continue;
          case 10:
            continue;
          default:
            if (c >= 0x30 && c <= 0x37) {
              let v = c - 0x30;
              for (let k = 0; k < 2 && b[this.pos]! >= 0x30 && b[this.pos]! <= 0x37; k++)
                v = v * 8 + b[this.pos++]! - 0x30;
              c = v & 0xff;
            }
        }
      }
      out.push(c);
    }
    return Uint8Array.from(out);
  }

  private hexString(): Uint8Array {
    const b = this.buf;
    this.pos++;
    const out: number[] = [];
    let hi = -1;
    while (this.pos < this.end) {
      const c = b[this.pos++]!;
      if (c === 0x3e) break;
      const v = hexValue(c);
      if (v < 0) continue;
      if (hi < 0) hi = v;
      else {
        out.push((hi << 4) | v);
        hi = -1;
      }
    }
    if (hi >= 0) out.push(hi << 4);
    return Uint8Array.from(out);
  }
}
