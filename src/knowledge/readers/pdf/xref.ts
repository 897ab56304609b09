import { decodeFilters } from "./filters.js";
import { Lexer, PdfSyntaxError } from "./lexer.js";
import type { DecodeBudget } from "./limits.js";
import { isDict, isName, latin1, num, PdfKeyword, PdfStream, type PdfDict, type PdfValue } from "./objects.js";

/** Where an object is: at a byte offset (1), or inside an object stream (2). */
export type XrefEntry = { type: 1; offset: number; gen: number } | { type: 2; stream: number; index: number };

/** Incremental updates chain sections through /Prev; more than this is a loop or an attack. */
const MAX_SECTIONS = 256;

type ParseAt = (offset: number) => Promise<{ num: number; value: PdfValue }>;

/**
 * Reads the cross-reference data from `startxref` back through every /Prev section: classic
 * tables (with a hybrid file's /XRefStm) and xref streams. The newest section's entry for a
 * number wins. Throws when the data is unreadable, and the caller scans the file instead.
 */
export async function readXref(
  bytes: Uint8Array,
  parseAt: ParseAt,
  budget: DecodeBudget,
): Promise<{ entries: Map<number, XrefEntry>; trailer: PdfDict }> {
  const tail = latin1(bytes, Math.max(0, bytes.length - 4096));
  let at = tail.lastIndexOf("startxref");
  let start: number;
  if (at !== -1) start = Math.max(0, bytes.length - 4096) + at;
  else {
    at = latin1(bytes).lastIndexOf("startxref");
    if (at === -1) throw new PdfSyntaxError("no startxref");
    start = at;
  }
  const offset = new Lexer(bytes, start + 9).next();
  if (typeof offset !== "number") throw new PdfSyntaxError("bad startxref");
  const entries = new Map<number, XrefEntry>();
  let trailer: PdfDict | undefined;
  const seen = new Set<number>();
  let next: number | undefined = offset;
  while (next !== undefined && !seen.has(next) && seen.size < MAX_SECTIONS) {
    seen.add(next);
    const dict = await readSection(bytes, next, entries, parseAt, budget);
    trailer ??= dict;
    const xrefStm = dict.get("XRefStm");
    if (typeof xrefStm === "number" && !seen.has(xrefStm)) {
      seen.add(xrefStm);
      await readSection(bytes, xrefStm, entries, parseAt, budget).catch(() => undefined);
    }
    const prev = dict.get("Prev");
    next = typeof prev === "number" ? prev : undefined;
  }
  if (!trailer) throw new PdfSyntaxError("no trailer");
  return { entries, trailer };
}

async function readSection(
  bytes: Uint8Array,
  offset: number,
  entries: Map<number, XrefEntry>,
  parseAt: ParseAt,
  budget: DecodeBudget,
): Promise<PdfDict> {
  const lx = new Lexer(bytes, offset);
  const first = lx.next();
  if (first instanceof PdfKeyword && first.word === "xref") return readTable(lx, entries);
  const { value } = await parseAt(offset);
  if (!(value instanceof PdfStream) || !isName(value.dict.get("Type"), "XRef"))
    throw new PdfSyntaxError("no xref section at startxref");
  const data = await decodeFilters(value.raw, value.dict, budget);
  if (!data) throw new PdfSyntaxError("undecodable xref stream");
  readStream(data, value.dict, entries);
  return value.dict;
}

function readTable(lx: Lexer, entries: Map<number, XrefEntry>): PdfDict {
  for (;;) {
    const t = lx.next();
    if (t instanceof PdfKeyword && t.word === "trailer") {
      const d = lx.next();
      if (!isDict(d)) throw new PdfSyntaxError("bad trailer");
      return d;
    }
    const count = lx.next();
    if (typeof t !== "number" || typeof count !== "number") throw new PdfSyntaxError("bad xref subsection");
    for (let i = 0; i < count; i++) {
      const off = lx.next();
      const gen = lx.next();
      const kind = lx.next();
      if (typeof off !== "number" || typeof gen !== "number" || !(kind instanceof PdfKeyword))
        throw new PdfSyntaxError("bad xref entry");
      const n = t + i;
      // free entries are skipped, not recorded: a hybrid file's table marks free the objects its
      // /XRefStm stream places, and an object that really is free is referenced by nothing
      if (!entries.has(n) && kind.word === "n" && off > 0) entries.set(n, { type: 1, offset: off, gen });
    }
  }
}

function readStream(data: Uint8Array, dict: PdfDict, entries: Map<number, XrefEntry>): void {
  const w = dict.get("W");
  if (!Array.isArray(w) || w.length < 3) throw new PdfSyntaxError("bad xref stream /W");
  const [w0, w1, w2] = w.map((x) => num(x)) as [number, number, number];
  const rowLen = w0 + w1 + w2;
  if (rowLen <= 0) throw new PdfSyntaxError("bad xref stream /W");
  const index = dict.get("Index");
  const ranges = Array.isArray(index) ? index.map((x) => num(x)) : [0, num(dict.get("Size"))];
  const field = (pos: number, width: number) => {
    let v = 0;
    for (let i = 0; i < width; i++) v = v * 256 + data[pos + i]!;
    return v;
  };
  let pos = 0;
  for (let r = 0; r + 1 < ranges.length; r += 2) {
    const start = ranges[r]!;
    const count = ranges[r + 1]!;
    for (let i = 0; i < count && pos + rowLen <= data.length; i++, pos += rowLen) {
      const type = w0 === 0 ? 1 : field(pos, w0);
      const a = field(pos + w0, w1);
      const b = field(pos + w0 + w1, w2);
      const n = start + i;
      if (entries.has(n)) continue;
      if (type === 1) entries.set(n, { type: 1, offset: a, gen: b });
      else if (type === 2) entries.set(n, { type: 2, stream: a, index: b });
    }
  }
}
