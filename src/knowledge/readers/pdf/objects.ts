/** A PDF name (`/Type`), interned so names compare by identity as well as by value. */
export class PdfName {
  private static readonly interned = new Map<string, PdfName>();
  private constructor(readonly name: string) {}
  static of(name: string): PdfName {
    let n = PdfName.interned.get(name);
    if (!n) PdfName.interned.set(name, (n = new PdfName(name)));
    return n;
  }
}

/** An indirect reference (`12 0 R`). */
export class PdfRef {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
}

/** A bare keyword: a content-stream operator, or `obj`, `stream`, `R`, … while parsing the file. */
export class PdfKeyword {
  constructor(readonly word: string) {}
}

export type PdfDict = Map<string, PdfValue>;

/** A stream object: its dictionary and its raw (still encoded, possibly encrypted) bytes. */
export class PdfStream {
  constructor(
    readonly dict: PdfDict,
    readonly raw: Uint8Array,
    /** the object it was read from, whose number and generation key its decryption */
    readonly ref?: PdfRef,
  ) {}
}

/** Strings are their bytes: how they read as text depends on the font or context. */
export type PdfValue = number | boolean | null | Uint8Array | PdfName | PdfRef | PdfValue[] | PdfDict | PdfStream;

export const isDict = (v: unknown): v is PdfDict => v instanceof Map;
export const isName = (v: unknown, name?: string): v is PdfName =>
  v instanceof PdfName && (name === undefined || v.name === name);
export const num = (v: unknown, fallback = 0): number => (typeof v === "number" && Number.isFinite(v) ? v : fallback);
export const nameOf = (v: unknown): string | undefined => (v instanceof PdfName ? v.name : undefined);

/** Bytes as a string of one char per byte (offsets in the string are offsets in the bytes). */
export function latin1(bytes: Uint8Array, start = 0, end = bytes.length): string {
  let s = "";
  for (let i = start; i < end; i += 8192)
    s += String.fromCharCode.apply(null, bytes.subarray(i, Math.min(end, i + 8192)) as unknown as number[]);
  return s;
}
