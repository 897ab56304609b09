const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const TERMINATE = 0x58; // 'X'

/**
 * Follows the client side of the Postgres wire protocol just enough to see a Terminate message.
 * A real server closes the connection after Terminate, and so does the embedded one
 * (pglite-wire-server.ts); pglite-socket's server did not, and the Neon driver waits for the
 * server to close, so the proxy closes on Terminate itself rather than trust every server to.
 */
export class TerminateWatch {
  private started = false;
  /** bytes of the current message still to skip */
  private remaining = 0;
  /** a message header split across chunks */
  private header: number[] = [];

  /** Feeds client bytes; true once a Terminate message has been seen. */
  feed(chunk: Uint8Array): boolean {
    let i = 0;
    while (i < chunk.length) {
      if (this.remaining > 0) {
        const skip = Math.min(this.remaining, chunk.length - i);
        this.remaining -= skip;
        i += skip;
        continue;
      }
      this.header.push(chunk[i++]!);
      // Startup-phase messages have no type byte: int32 length, int32 code.
      const headerSize = this.started ? 5 : 8;
      if (this.header.length < headerSize) continue;
      const h = this.header;
      this.header = [];
      if (!this.started) {
        const length = ((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) >>> 0;
        const code = ((h[4]! << 24) | (h[5]! << 16) | (h[6]! << 8) | h[7]!) >>> 0;
        if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) this.started = true;
        this.remaining = Math.max(0, length - 8);
        continue;
      }
      if (h[0] === TERMINATE) return true;
      const length = ((h[1]! << 24) | (h[2]! << 16) | (h[3]! << 8) | h[4]!) >>> 0;
      this.remaining = Math.max(0, length - 4);
    }
    return false;
  }
}
