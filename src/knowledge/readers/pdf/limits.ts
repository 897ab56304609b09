import { ValidationError } from "../../../errors.js";

/** Decoded bytes one stream may expand to: content streams of real pages stay far below it. */
export const MAX_STREAM_BYTES = 32 * 1024 * 1024;
/** Decoded bytes a whole document may expand to, whatever its size: what a Worker can hold. */
export const MAX_DOCUMENT_BYTES = 96 * 1024 * 1024;
/** Below MAX_DOCUMENT_BYTES, decoded bytes may be this many times the file's size… */
const EXPANSION_RATIO = 100;
/** …and at least this many, so a small file with well-compressed pages is not refused. */
const MIN_DOCUMENT_BYTES = 16 * 1024 * 1024;
/** Form XObjects drawn inside Form XObjects: real files nest a few levels, loops nest forever. */
export const MAX_FORM_DEPTH = 12;

/**
 * How much a document's streams may still expand to. Every decoder takes its output from here, so
 * a zip bomb (a few KB that inflate to gigabytes) stops at the limit as a ValidationError instead
 * of filling the isolate's memory.
 */
export class DecodeBudget {
  private remaining: number;
  constructor(inputBytes: number) {
    this.remaining = Math.min(MAX_DOCUMENT_BYTES, Math.max(MIN_DOCUMENT_BYTES, inputBytes * EXPANSION_RATIO));
  }

  /** The bytes one more stream may decode to. */
  get streamLimit(): number {
    return Math.min(MAX_STREAM_BYTES, this.remaining);
  }

  /** Counts a stream's decoded bytes against the document's limit. */
  spend(n: number): void {
    this.remaining -= n;
    if (this.remaining < 0) throw tooLarge();
  }
}

export function tooLarge(): ValidationError {
  return new ValidationError(
    "the PDF's compressed streams expand past the size this reader accepts (a decompression bomb?)",
    "file",
  );
}
