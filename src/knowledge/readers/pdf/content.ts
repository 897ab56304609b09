import { ValidationError } from "../../../errors.js";
import type { PdfDocument } from "./document.js";
import { PdfFont, type Glyph } from "./font.js";
import { Lexer } from "./lexer.js";
import { MAX_FORM_DEPTH } from "./limits.js";
import { apply, IDENTITY, multiply, toMatrix, type Matrix } from "./matrix.js";
import { isName, num, PdfKeyword, PdfName, PdfStream, type PdfDict, type PdfValue } from "./objects.js";
import type { TextBuilder } from "./text-builder.js";

/** The graphics state's part that text depends on (saved by q, restored by Q). */
interface GState {
  ctm: Matrix;
  font?: PdfFont;
  size: number;
  charSpacing: number;
  wordSpacing: number;
  scale: number;
  leading: number;
  rise: number;
}

/** Operands kept per operator: more than any operator takes, so a garbage stream cannot grow it. */
const MAX_OPERANDS = 64;

/** What content streams of one document share: its fonts, loaded once. */
export class ContentContext {
  private fonts = new Map<PdfDict, Promise<PdfFont>>();
  constructor(readonly doc: PdfDocument) {}

  font(dict: PdfDict): Promise<PdfFont> {
    let f = this.fonts.get(dict);
    if (!f) {
      f = PdfFont.load(this.doc, dict);
      this.fonts.set(dict, f);
    }
    return f;
  }
}

/**
 * Runs a content stream's text operators (and the Form XObjects it draws, recursively), adding
 * every shown string to `out` at the position it is drawn.
 */
export async function runContent(
  ctx: ContentContext,
  data: Uint8Array,
  resources: PdfDict | undefined,
  out: TextBuilder,
  ctm: Matrix = IDENTITY,
  depth = 0,
  forms: Set<PdfStream> = new Set(),
): Promise<void> {
  const doc = ctx.doc;
  let gs: GState = { ctm, size: 0, charSpacing: 0, wordSpacing: 0, scale: 1, leading: 0, rise: 0 };
  const stack: GState[] = [];
  let tm: Matrix = IDENTITY;
  let tlm: Matrix = IDENTITY;
  const fontDicts = await doc.dict(resources?.get("Font"));
  const xobjects = await doc.dict(resources?.get("XObject"));
  const lx = new Lexer(data);
  const ops: PdfValue[] = [];

  const moveLine = (tx: number, ty: number) => {
    tlm = multiply([1, 0, 0, 1, tx, ty], tlm);
    tm = tlm;
  };

  const show = (bytes: Uint8Array) => {
    const font = gs.font;
    if (!font) return;
    const glyphs: Glyph[] = font.decode(bytes);
    let text = "";
    let advance = 0;
    for (const g of glyphs) {
      text += g.text;
      advance += (g.width * gs.size + gs.charSpacing + (g.space ? gs.wordSpacing : 0)) * gs.scale;
    }
    const m = multiply(tm, gs.ctm);
    const [sx, sy] = apply(m, 0, gs.rise);
    tm = font.vertical ? multiply([1, 0, 0, 1, 0, -advance], tm) : multiply([1, 0, 0, 1, advance, 0], tm);
    if (!text) return;
    const end = multiply(tm, gs.ctm);
    const [ex, ey] = apply(end, 0, gs.rise);
    const len = Math.hypot(m[0], m[1]) || 1;
    const size = Math.abs(gs.size) * Math.hypot(m[2], m[3]);
    out.add(text, sx, sy, ex, ey, size, m[0] / len, m[1] / len);
  };

  for (let t = lx.next(); t !== undefined; t = lx.next()) {
    if (!(t instanceof PdfKeyword)) {
      if (ops.length < MAX_OPERANDS) ops.push(t);
      continue;
    }
    const a = (i: number) => num(ops[i]);
    switch (t.word) {
      case "q":
        stack.push({ ...gs });
        break;
      case "Q":
        gs = stack.pop() ?? gs;
        break;
      case "cm": {
        const m = toMatrix(ops);
        if (m) gs.ctm = multiply(m, gs.ctm);
        break;
      }
      case "BT":
        tm = tlm = IDENTITY;
        break;
      case "Tf": {
        const name = ops[0];
        const fd = name instanceof PdfName ? await doc.dict(fontDicts?.get(name.name)) : undefined;
        gs.font = fd ? await ctx.font(fd) : undefined;
        gs.size = a(1);
        break;
      }
      case "Tc":
        gs.charSpacing = a(0);
        break;
      case "Tw":
        gs.wordSpacing = a(0);
        break;
      case "Tz":
        gs.scale = a(0) / 100;
        break;
      case "TL":
        gs.leading = a(0);
        break;
      case "Ts":
        gs.rise = a(0);
        break;
      case "Td":
        moveLine(a(0), a(1));
        break;
      case "TD":
        gs.leading = -a(1);
        moveLine(a(0), a(1));
        break;
      case "Tm": {
        const m = toMatrix(ops);
        if (m) tm = tlm = m;
        break;
      }
      case "T*":
        moveLine(0, -gs.leading);
        break;
      case "Tj":
        if (ops[0] instanceof Uint8Array) show(ops[0]);
        break;
      case "'":
        moveLine(0, -gs.leading);
        if (ops[0] instanceof Uint8Array) show(ops[0]);
        break;
      case '"':
        gs.wordSpacing = a(0);
        gs.charSpacing = a(1);
        moveLine(0, -gs.leading);
        if (ops[2] instanceof Uint8Array) show(ops[2]);
        break;
      case "TJ":
        for (const e of Array.isArray(ops[0]) ? ops[0] : []) {
          if (e instanceof Uint8Array) show(e);
          else if (typeof e === "number") {
            const d = (-e / 1000) * gs.size * gs.scale;
            tm = gs.font?.vertical ? multiply([1, 0, 0, 1, 0, -d], tm) : multiply([1, 0, 0, 1, d, 0], tm);
          }
        }
        break;
      case "Do": {
        const name = ops[0];
        if (!(name instanceof PdfName) || !xobjects) break;
        const xo = await doc.resolve(xobjects.get(name.name));
        if (!(xo instanceof PdfStream) || !isName(xo.dict.get("Subtype"), "Form") || forms.has(xo)) break;
        if (depth >= MAX_FORM_DEPTH) throw new ValidationError("the PDF nests Form XObjects too deeply", "file");
        const formData = await doc.streamData(xo);
        if (!formData) break;
        const own = await doc.dict(xo.dict.get("Resources"));
        const matrix = await doc.resolve(xo.dict.get("Matrix"));
        const m = (Array.isArray(matrix) && toMatrix(matrix)) || IDENTITY;
        forms.add(xo);
        await runContent(ctx, formData, own ?? resources, out, multiply(m, gs.ctm), depth + 1, forms);
        forms.delete(xo);
        break;
      }
      case "ID":
        lx.skipInlineImageData();
        break;
    }
    ops.length = 0;
  }
}
