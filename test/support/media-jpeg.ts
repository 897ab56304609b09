/**
 * A real, decodable JPEG of a chosen size, built byte by byte (no image library): an 8x8
 * mid-grey baseline image, padded to `bytes` with comment (COM) segments of deterministic
 * pseudo-random bytes. Random padding keeps it as incompressible as photo data, so stored-size
 * figures are not flattered by compression. Node tests, Workers tests and the bench share it.
 */
export function syntheticJpeg(bytes: number, seed = 1): Uint8Array<ArrayBuffer> {
  const u16 = (n: number) => [n >> 8, n & 0xff];
  const segment = (marker: number, payload: number[]) => [0xff, marker, ...u16(payload.length + 2), ...payload];
  const head = [
    0xff,
    0xd8, // SOI
    ...segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, ...u16(1), ...u16(1), 0, 0]), // APP0 "JFIF", 1.1, no thumbnail
  ];
  const image = [
    ...segment(0xdb, [0x00, ...new Array<number>(64).fill(1)]), // one quantisation table, all ones
    ...segment(0xc0, [8, ...u16(8), ...u16(8), 1, 1, 0x11, 0]), // baseline, 8x8, one grey component
    // Huffman tables with one code each ("0", length 1): DC difference category 0, and AC end-of-block.
    ...segment(0xc4, [0x00, 1, ...new Array<number>(15).fill(0), 0x00]),
    ...segment(0xc4, [0x10, 1, ...new Array<number>(15).fill(0), 0x00]),
    ...segment(0xda, [1, 1, 0x00, 0, 63, 0]), // scan: component 1, tables 0/0, full spectrum
    0x3f, // DC "0" + EOB "0", padded with 1-bits: every coefficient zero, a flat grey block
    0xff,
    0xd9, // EOI
  ];
  const padding = bytes - head.length - image.length;
  if (padding < 0 || (padding > 0 && padding < 4)) {
    throw new RangeError(`cannot build a JPEG of exactly ${bytes} bytes`);
  }
  const out = new Uint8Array(bytes);
  out.set(head, 0);
  let at = head.length;
  let x = seed >>> 0 || 1;
  for (let left = padding; left > 0;) {
    // A COM segment is 4 bytes of header plus at most 65,533 bytes; never leave a remainder too small for a header.
    let size = Math.min(left, 65_537);
    if (left - size > 0 && left - size < 4) size -= 4;
    out.set([0xff, 0xfe, ...u16(size - 2)], at);
    for (let i = 4; i < size; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      out[at + i] = x & 0xff;
    }
    at += size;
    left -= size;
  }
  out.set(image, at);
  return out;
}
