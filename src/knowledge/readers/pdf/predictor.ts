import { num, type PdfDict } from "./objects.js";

/**
 * Undoes a FlateDecode/LZWDecode predictor (/DecodeParms /Predictor): PNG row filters (10–15,
 * each row tagged with its filter) or TIFF predictor 2 (8-bit components). Xref streams use them.
 */
export function unpredict(data: Uint8Array, parms: PdfDict | undefined): Uint8Array {
  const predictor = num(parms?.get("Predictor"), 1);
  if (predictor < 2) return data;
  const colors = Math.max(1, num(parms?.get("Colors"), 1));
  const bpc = num(parms?.get("BitsPerComponent"), 8);
  const columns = Math.max(1, num(parms?.get("Columns"), 1));
  const rowBytes = Math.ceil((colors * bpc * columns) / 8);
  const bpp = Math.max(1, Math.ceil((colors * bpc) / 8));
  if (predictor === 2) {
    if (bpc !== 8) return data;
    const out = data.slice();
    for (let r = 0; r + rowBytes <= out.length; r += rowBytes)
      for (let i = bpp; i < rowBytes; i++) out[r + i] = (out[r + i]! + out[r + i - bpp]!) & 0xff;
    return out;
  }
  const rows = Math.floor(data.length / (rowBytes + 1));
  const out = new Uint8Array(rows * rowBytes);
  for (let r = 0; r < rows; r++) {
    const type = data[r * (rowBytes + 1)]!;
    const src = r * (rowBytes + 1) + 1;
    const dst = r * rowBytes;
    const up = dst - rowBytes;
    for (let i = 0; i < rowBytes; i++) {
      const x = data[src + i]!;
      const a = i >= bpp ? out[dst + i - bpp]! : 0;
      const b = r > 0 ? out[up + i]! : 0;
      const c = r > 0 && i >= bpp ? out[up + i - bpp]! : 0;
      let v = x;
      if (type === 1) v = x + a;
      else if (type === 2) v = x + b;
      else if (type === 3) v = x + ((a + b) >> 1);
      else if (type === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
      }
      out[dst + i] = v & 0xff;
    }
  }
  return out;
}
