import { tooLarge } from "./limits.js";

/** A growable byte buffer that refuses to grow past its limit. */
export class ByteSink {
  private buf: Uint8Array;
  length = 0;
  constructor(
    private readonly limit: number,
    initial = 1024,
  ) {
    this.buf = new Uint8Array(Math.max(16, Math.min(initial, limit)));
  }

  private room(n: number): void {
    const need = this.length + n;
    if (need > this.limit) throw tooLarge();
    if (need <= this.buf.length) return;
    const next = new Uint8Array(Math.min(this.limit, Math.max(need, this.buf.length * 2)));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  push(byte: number): void {
    if (this.length >= this.buf.length) this.room(1);
    else if (this.length >= this.limit) throw tooLarge();
    this.buf[this.length++] = byte;
  }

  write(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** Appends `len` bytes copied from offset `from` of what is already written (LZW's table entries). */
  copyWithin(from: number, len: number): void {
    this.room(len);
    for (let i = 0; i < len; i++) this.buf[this.length + i] = this.buf[from + i]!;
    this.length += len;
  }

  bytes(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}
