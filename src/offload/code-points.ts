/**
 * Offloaded results are measured and addressed in Unicode code points, not UTF-16 units.
 *
 * Why: the threshold and the read/search offsets are about what the model reads. In UTF-16 an
 * emoji (or any character outside the BMP) counts twice, so a result of 10,000 emoji would be
 * "20,000 characters" and an offset could land between the two halves of one character, which
 * the model cannot see and a slice would turn into a lone surrogate. Code points count each
 * character once, the way the model's text (and Python's `len`, agno's own measure) counts it.
 * The cost is a scan over the string, paid only when the string's UTF-16 length is already over
 * the threshold (a string of n units has at most n code points, so anything shorter is skipped
 * without scanning).
 */

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/** The number of code points in `s` between UTF-16 indexes `from` and `to` (a lone surrogate counts as one, as when iterated). */
export function countCodePoints(s: string, from = 0, to = s.length): number {
  let pairs = 0;
  for (let i = from; i < to - 1; i++) {
    if (isHigh(s.charCodeAt(i)) && isLow(s.charCodeAt(i + 1))) {
      pairs++;
      i++;
    }
  }
  return to - from - pairs;
}

/** `i`, or `i + 1` when `i` would split a surrogate pair: a cut there keeps characters whole. */
export function alignForward(s: string, i: number): number {
  return i > 0 && i < s.length && isLow(s.charCodeAt(i)) && isHigh(s.charCodeAt(i - 1)) ? i + 1 : i;
}

/** The UTF-16 index `n` code points after UTF-16 index `from` (clamped to the end). */
export function advance(s: string, from: number, n: number): number {
  let i = from;
  for (let k = 0; k < n && i < s.length; k++)
    i += isHigh(s.charCodeAt(i)) && i + 1 < s.length && isLow(s.charCodeAt(i + 1)) ? 2 : 1;
  return i;
}

/** The UTF-16 index `n` code points before UTF-16 index `from` (clamped to the start). */
export function retreat(s: string, from: number, n: number): number {
  let i = from;
  for (let k = 0; k < n && i > 0; k++) i -= i >= 2 && isLow(s.charCodeAt(i - 1)) && isHigh(s.charCodeAt(i - 2)) ? 2 : 1;
  return i;
}

/** `length` code points of `s` from code point `offset`. */
export function sliceCodePoints(s: string, offset: number, length: number): string {
  const start = advance(s, 0, offset);
  return s.slice(start, advance(s, start, length));
}

/** Lines as an editor shows them: a final newline does not open another line. */
export function countLines(s: string): number {
  if (s.length === 0) return 0;
  let lines = 1;
  for (let i = s.indexOf("\n"); i !== -1; i = s.indexOf("\n", i + 1)) if (i < s.length - 1) lines++;
  return lines;
}
