import { ascii85Decode, asciiHexDecode, lzwDecode, runLengthDecode } from "./codecs.js";
import { inflate } from "./inflate.js";
import type { DecodeBudget } from "./limits.js";
import { isDict, nameOf, num, type PdfDict, type PdfValue } from "./objects.js";
import { unpredict } from "./predictor.js";

/** Inline images abbreviate filter names. */
const ALIASES: Record<string, string> = {
  Fl: "FlateDecode",
  AHx: "ASCIIHexDecode",
  A85: "ASCII85Decode",
  LZW: "LZWDecode",
  RL: "RunLengthDecode",
};

const list = (v: PdfValue | undefined): PdfValue[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/**
 * A stream's data through its /Filter chain. Undefined when a filter is one text extraction has
 * no use for (image codecs: DCT, JPX, CCITT, JBIG2) or unknown. Each step's output counts
 * against the document's decode budget.
 */
export async function decodeFilters(
  raw: Uint8Array,
  dict: PdfDict,
  budget: DecodeBudget,
): Promise<Uint8Array | undefined> {
  const filters = list(dict.get("Filter"));
  const parms = list(dict.get("DecodeParms") ?? dict.get("DP"));
  let data = raw;
  for (let i = 0; i < filters.length; i++) {
    const name = nameOf(filters[i]);
    const p = parms[i];
    const parm = isDict(p) ? p : undefined;
    const limit = budget.streamLimit;
    switch (name && (ALIASES[name] ?? name)) {
      case "FlateDecode":
        data = unpredict(await inflate(data, limit), parm);
        break;
      case "LZWDecode":
        data = unpredict(lzwDecode(data, limit, num(parm?.get("EarlyChange"), 1)), parm);
        break;
      case "ASCIIHexDecode":
        data = asciiHexDecode(data);
        break;
      case "ASCII85Decode":
        data = ascii85Decode(data, limit);
        break;
      case "RunLengthDecode":
        data = runLengthDecode(data, limit);
        break;
      case "Crypt": // the document's own decryption already ran; /Identity is the only other
        break;
      default:
        return undefined;
    }
    budget.spend(data.length);
  }
  return data;
}
