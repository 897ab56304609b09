import { ValidationError } from "../../../errors.js";
import { decodeFilters } from "./filters.js";
import { Lexer, PdfSyntaxError } from "./lexer.js";
import { DecodeBudget } from "./limits.js";
import { isDict, isName, latin1, num, PdfKeyword, PdfRef, PdfStream, type PdfDict, type PdfValue } from "./objects.js";
import { readXref, type XrefEntry } from "./xref.js";

/** Decrypts one stream's bytes, keyed by the object it belongs to. */
export type StreamDecryptor = (data: Uint8Array, ref: PdfRef) => Promise<Uint8Array>;

/** Where `word` next occurs in `buf` at or after `from`, or -1. */
export function indexOfBytes(buf: Uint8Array, word: string, from: number): number {
  const first = word.charCodeAt(0);
  for (let i = buf.indexOf(first, from); i !== -1 && i + word.length <= buf.length; i = buf.indexOf(first, i + 1)) {
    let k = 1;
    while (k < word.length && buf[i + k] === word.charCodeAt(k)) k++;
    if (k === word.length) return i;
  }
  return -1;
}

/**
 * A PDF file's objects: located through its cross-reference data (tables, streams, and their
 * /Prev chain), or, when that data is missing or wrong, by scanning the file for `N G obj`.
 * Objects are parsed on first use and kept.
 */
export class PdfDocument {
  readonly budget: DecodeBudget;
  trailer: PdfDict = new Map();
  decrypt?: StreamDecryptor;
  private entries = new Map<number, XrefEntry>();
  private cache = new Map<number, Promise<PdfValue>>();
  private objStms = new Map<number, Promise<Map<number, PdfValue>>>();
  private rebuilt = false;

  private constructor(readonly bytes: Uint8Array) {
    this.budget = new DecodeBudget(bytes.length);
  }

  static async open(bytes: Uint8Array): Promise<PdfDocument> {
    const doc = new PdfDocument(bytes);
    try {
      const { entries, trailer } = await readXref(bytes, (offset) => doc.parseAt(offset), doc.budget);
      doc.entries = entries;
      doc.trailer = trailer;
    } catch (err) {
      if (err instanceof ValidationError) throw err;
    }
    if (!(await doc.hasCatalog())) await doc.rebuild();
    if (!(await doc.hasCatalog()))
      throw new ValidationError("the PDF could not be read: it has no document catalog", "file");
    return doc;
  }

  private async hasCatalog(): Promise<boolean> {
    const root = await this.dict(this.trailer.get("Root")).catch(() => undefined);
    return !!root?.has("Pages");
  }

  /** The object a reference points to (null when it does not exist, as the spec reads it). */
  get(ref: PdfRef): Promise<PdfValue> {
    let p = this.cache.get(ref.num);
    if (!p) {
      p = this.load(ref.num);
      this.cache.set(ref.num, p);
    }
    return p;
  }

  async resolve(v: PdfValue | undefined): Promise<PdfValue | undefined> {
    for (let hops = 0; v instanceof PdfRef && hops < 8; hops++) v = await this.get(v);
    return v instanceof PdfRef ? undefined : v;
  }

  async dict(v: PdfValue | undefined): Promise<PdfDict | undefined> {
    const r = await this.resolve(v);
    return isDict(r) ? r : r instanceof PdfStream ? r.dict : undefined;
  }

  /** A stream's decoded bytes; undefined for image codecs text extraction skips. */
  async streamData(s: PdfStream): Promise<Uint8Array | undefined> {
    let raw = s.raw;
    if (this.decrypt && s.ref && !isName(s.dict.get("Type"), "XRef")) raw = await this.decrypt(raw, s.ref);
    return decodeFilters(raw, s.dict, this.budget);
  }

  private async load(n: number): Promise<PdfValue> {
    const e = this.entries.get(n);
    if (!e) return null;
    if (e.type === 2) {
      const objects = await this.objectStream(e.stream);
      return objects.get(n) ?? null;
    }
    const parsed = await this.parseAt(e.offset).catch(() => undefined);
    if (parsed?.num === n) return parsed.value;
    // the table points somewhere else than the object: its offsets cannot be trusted
    if (!this.rebuilt) {
      await this.rebuild();
      this.cache.clear();
      return this.get(new PdfRef(n, 0));
    }
    return null;
  }

  /** The objects in an object stream (/Type /ObjStm), by number. */
  private objectStream(n: number): Promise<Map<number, PdfValue>> {
    let p = this.objStms.get(n);
    if (!p) {
      // set before loading, so a stream that claims to hold itself reads as empty
      this.objStms.set(n, Promise.resolve(new Map()));
      p = this.readObjectStream(n);
      this.objStms.set(n, p);
    }
    return p;
  }

  private async readObjectStream(n: number): Promise<Map<number, PdfValue>> {
    const out = new Map<number, PdfValue>();
    const s = await this.get(new PdfRef(n, 0));
    if (!(s instanceof PdfStream)) return out;
    const data = await this.streamData(s);
    if (!data) return out;
    const first = num(s.dict.get("First"));
    const count = num(s.dict.get("N"));
    const head = new Lexer(data, 0, Math.min(first, data.length));
    const offsets: Array<[number, number]> = [];
    for (let i = 0; i < count; i++) {
      const objNum = head.next();
      const off = head.next();
      if (typeof objNum !== "number" || typeof off !== "number") break;
      offsets.push([objNum, off]);
    }
    for (const [objNum, off] of offsets) {
      const lx = new Lexer(data, first + off);
      const v = lx.next();
      if (!out.has(objNum)) out.set(objNum, v instanceof PdfKeyword || v === undefined ? null : v);
    }
    return out;
  }

  /** The object written at `offset` (`N G obj … endobj`), streams included. */
  async parseAt(offset: number): Promise<{ num: number; value: PdfValue }> {
    const lx = new Lexer(this.bytes, offset);
    const n = lx.next();
    const g = lx.next();
    const kw = lx.next();
    if (typeof n !== "number" || typeof g !== "number" || !(kw instanceof PdfKeyword) || kw.word !== "obj")
      throw new PdfSyntaxError(`no object at offset ${offset}`);
    const v = lx.next();
    const value = v instanceof PdfKeyword || v === undefined ? null : v;
    if (!isDict(value)) return { num: n, value };
    const save = lx.pos;
    const after = lx.next();
    if (!(after instanceof PdfKeyword) || after.word !== "stream") {
      lx.pos = save;
      return { num: n, value };
    }
    return { num: n, value: new PdfStream(value, await this.streamBytes(lx.pos, value), new PdfRef(n, g)) };
  }

  /** The raw bytes of a stream whose `stream` keyword ends at `pos`: by /Length when it is right. */
  private async streamBytes(pos: number, dict: PdfDict): Promise<Uint8Array> {
    const b = this.bytes;
    if (b[pos] === 13) pos++;
    if (b[pos] === 10) pos++;
    let length = dict.get("Length");
    if (length instanceof PdfRef) length = await this.get(length).catch(() => null);
    if (typeof length === "number" && length >= 0 && pos + length <= b.length) {
      const lx = new Lexer(b, pos + length, Math.min(b.length, pos + length + 64));
      const kw = lx.next();
      if (kw instanceof PdfKeyword && kw.word === "endstream") return b.subarray(pos, pos + length);
    }
    let end = indexOfBytes(b, "endstream", pos);
    if (end === -1) end = b.length;
    if (b[end - 1] === 10) end--;
    if (b[end - 1] === 13) end--;
    return b.subarray(pos, Math.max(pos, end));
  }

  /**
   * Rebuilds the object locations by scanning the file for `N G obj` (the last definition of a
   * number wins, as in an incremental update), then registers the objects inside object streams,
   * and finds the trailer: the last `trailer` dictionary, an xref stream's dictionary, or failing
   * both the catalog itself.
   */
  private async rebuild(): Promise<void> {
    this.rebuilt = true;
    const text = latin1(this.bytes);
    const entries = new Map<number, XrefEntry>();
    const re = /(?<![0-9])(\d{1,10})[ \t\r\n\f\0]+(\d{1,5})[ \t\r\n\f\0]+obj(?![A-Za-z])/g;
    for (let m = re.exec(text); m; m = re.exec(text))
      entries.set(Number(m[1]), { type: 1, offset: m.index, gen: Number(m[2]) });
    this.entries = entries;
    this.cache.clear();
    this.objStms.clear();
    let trailer: PdfDict | undefined;
    for (let at = text.lastIndexOf("trailer"); at !== -1 && !trailer; at = text.lastIndexOf("trailer", at - 1)) {
      const t = new Lexer(this.bytes, at + 7).next();
      if (isDict(t) && t.has("Root")) trailer = t;
    }
    const streams: number[] = [];
    let catalog: number | undefined;
    for (const [n, e] of [...entries]) {
      if (e.type !== 1) continue;
      // only objects that may be an object stream, xref stream or catalog are worth parsing
      const head = text.slice(e.offset, e.offset + 512);
      if (!/ObjStm|XRef|Catalog/.test(head)) continue;
      const v = await this.get(new PdfRef(n, 0)).catch(() => null);
      const d = v instanceof PdfStream ? v.dict : isDict(v) ? v : undefined;
      if (!d) continue;
      if (isName(d.get("Type"), "ObjStm")) streams.push(n);
      else if (isName(d.get("Type"), "XRef") && d.has("Root") && !trailer) trailer = d;
      else if (isName(d.get("Type"), "Catalog")) catalog = n;
    }
    for (const s of streams) {
      const objects = await this.objectStream(s).catch(() => new Map<number, PdfValue>());
      let index = 0;
      for (const n of objects.keys()) if (!entries.has(n)) entries.set(n, { type: 2, stream: s, index: index++ });
    }
    if (trailer) {
      // keep what only the original trailer knew (its /Encrypt, /ID), the found one winning
      for (const [k, v] of this.trailer) if (!trailer.has(k)) trailer.set(k, v);
      this.trailer = trailer;
    }
    // a trailer whose /Root is not the catalog (seen in the wild) gives way to the catalog found
    if (catalog !== undefined && !(await this.hasCatalog())) this.trailer.set("Root", new PdfRef(catalog, 0));
  }
}
