/** An affine transform [a b c d e f], as PDF writes them. */
export type Matrix = [number, number, number, number, number, number];

export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

/** m then n: the matrix of applying m first, then n (PDF's `m × n`). */
export function multiply(m: Matrix, n: Matrix): Matrix {
  return [
    m[0] * n[0] + m[1] * n[2],
    m[0] * n[1] + m[1] * n[3],
    m[2] * n[0] + m[3] * n[2],
    m[2] * n[1] + m[3] * n[3],
    m[4] * n[0] + m[5] * n[2] + n[4],
    m[4] * n[1] + m[5] * n[3] + n[5],
  ];
}

export function apply(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

/** A matrix from six operands, or undefined when they are not six finite numbers. */
export function toMatrix(v: unknown[]): Matrix | undefined {
  if (v.length !== 6 || !v.every((x) => typeof x === "number" && Number.isFinite(x))) return undefined;
  return v.slice() as Matrix;
}
