/** Advance widths (1/1000 em) of printable ASCII, 32–126, in the standard 14 fonts' metrics. */
const HELVETICA =
  "278 278 355 556 556 889 667 191 333 333 389 584 278 333 278 278 556 556 556 556 556 556 556 556 556 556 278 278 584 584 584 556 " +
  "1015 667 667 722 722 667 611 778 722 278 500 667 556 833 722 778 667 778 722 667 611 722 667 944 667 667 611 278 278 278 469 556 " +
  "333 556 556 500 556 556 278 556 556 222 222 500 222 833 556 556 556 556 333 500 278 556 500 722 500 500 500 334 260 334 584";
const TIMES =
  "250 333 408 500 500 833 778 180 333 333 500 564 250 333 250 278 500 500 500 500 500 500 500 500 500 500 278 278 564 564 564 444 " +
  "921 722 667 667 722 611 556 722 722 333 389 722 611 889 722 722 556 722 667 556 611 722 722 944 722 722 611 333 278 333 469 500 " +
  "333 444 500 444 500 444 333 500 500 278 278 500 278 778 500 500 500 500 333 389 278 500 500 722 500 500 444 480 200 480 541";

const parse = (s: string) => s.split(" ").map(Number);
let tables: { helvetica: number[]; times: number[] } | undefined;

/**
 * The width of a code in a font that lists no /Widths (the standard 14 are not required to):
 * Courier is monospaced, Times' and Helvetica's metrics cover ASCII, other codes take an average.
 * Only positions between runs depend on it (where spaces and line breaks go), never the text.
 */
export function standardWidth(baseFont: string, code: number): number {
  if (/courier|mono/i.test(baseFont)) return 600;
  tables ??= { helvetica: parse(HELVETICA), times: parse(TIMES) };
  const t =
    /times|serif|roman|georgia|garamond/i.test(baseFont) && !/sans/i.test(baseFont) ? tables.times : tables.helvetica;
  return code >= 32 && code <= 126 ? t[code - 32]! : 500;
}
