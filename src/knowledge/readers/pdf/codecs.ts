import { ByteSink } from "./byte-sink.js";

/** The value of an ASCII hex digit (either case), or -1 for any other byte. */
export const hexValue = (c: number): number =>
  c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 55 : c >= 0x61 && c <= 0x66 ? c - 87 : -1;

/** ASCIIHexDecode: hex digit pairs up to `>`, whitespace ignored, an odd last digit padded with 0. */
export function asciiHexDecode(data: Uint8Array): Uint8Array {
  const out = new Uint8Array((data.length + 1) >> 1);
  let n = 0;
  let hi = -1;
  for (const c of data) {
    if (c === 0x3e) break;
    const v = hexValue(c);
    if (v < 0) continue;
    if (hi < 0) hi = v;
    else {
      out[n++] = (hi << 4) | v;
      hi = -1;
    }
  }
  if (hi >= 0) out[n++] = hi << 4;
  return out.subarray(0, n);
}

/** ASCII85Decode: base-85 groups of five chars to four bytes, `z` for four zeros, up to `~>`. */
export function ascii85Decode(data: Uint8Array, limit: number): Uint8Array {
  const sink = new ByteSink(limit, data.length);
  const group: number[] = [];
  let i = 0;
  if (data[0] === 0x3c && data[1] === 0x7e) i = 2; // a leading <~ some writers keep
  for (; i < data.length; i++) {
    const c = data[i]!;
    if (c === 0x7e) break;
    if (c === 0x7a && group.length === 0) {
      for (let k = 0; k < 4; k++) sink.push(0);
      continue;
    }
    if (c < 0x21 || c > 0x75) continue;
    group.push(c - 0x21);
    if (group.length === 5) {
      let v = 0;
      for (const d of group) v = v * 85 + d;
      sink.push((v >>> 24) & 0xff);
      sink.push((v >>> 16) & 0xff);
      sink.push((v >>> 8) & 0xff);
      sink.push(v & 0xff);
      group.length = 0;
    }
  }
  if (group.length > 1) {
    const n = group.length - 1;
    while (group.length < 5) group.push(84);
    let v = 0;
    for (const d of group) v = v * 85 + d;
    for (let k = 0; k < n; k++) sink.push((v >>> (24 - 8 * k)) & 0xff);
  }
  return sink.bytes();
}

/** RunLengthDecode: a length byte, then that many literal bytes (0–127) or one byte repeated (129–255). */
export function runLengthDecode(data: Uint8Array, limit: number): Uint8Array {
  const sink = new ByteSink(limit, data.length * 2);
  let i = 0;
  while (i < data.length) {
    const n = data[i++]!;
    if (n === 128) break;
    if (n < 128) {
      sink.write(data.subarray(i, i + n + 1));
      i += n + 1;
    } else {
      const b = data[i++] ?? 0;
      for (let k = 0; k < 257 - n; k++) sink.push(b);
    }
  }
  return sink.bytes();
}

/** LZWDecode: variable-width codes (9 to 12 bits), 256 clears the table, 257 ends the data. */
export function lzwDecode(data: Uint8Array, limit: number, earlyChange = 1): Uint8Array {
  const sink = new ByteSink(limit, data.length * 3);
  const starts = new Int32Array(4096);
  const lens = new Int32Array(4096);
  let next = 258;
  let width = 9;
  let prevLen = 0;
  let bitBuf = 0;
  let bits = 0;
  let i = 0;
  for (;;) {
    while (bits < width && i < data.length) {
      bitBuf = ((bitBuf << 8) | data[i++]!) >>> 0;
      bits += 8;
    }
    if (bits < width) break;
    const code = (bitBuf >>> (bits - width)) & ((1 << width) - 1);
    bits -= width;
    bitBuf &= (1 << bits) - 1;
    if (code === 256) {
      next = 258;
      width = 9;
      prevLen = 0;
      continue;
    }
    if (code === 257) break;
    // A new entry is the previous string plus the first byte of this one: in the output they
    // sit side by side, so every entry is a slice of the output (start and length).
    const at = sink.length;
    let len: number;
    if (code < 256) {
      sink.push(code);
      len = 1;
    } else if (code < next) {
      sink.copyWithin(starts[code]!, lens[code]!);
      len = lens[code]!;
    } else if (code === next && prevLen > 0) {
      sink.copyWithin(at - prevLen, prevLen);
      sink.push(sink.bytes()[at - prevLen]!);
      len = prevLen + 1;
    } else break;
    if (prevLen > 0 && next < 4096) {
      starts[next] = at - prevLen;
      lens[next] = prevLen + 1;
      next++;
    }
    prevLen = len;
    if (next + earlyChange >= 1 << width && width < 12) width++;
  }
  return sink.bytes();
}
