/**
 * A minimal valid PDF, written by hand: one page per entry of `pages`, each line of text drawn
 * with the standard Helvetica font, and an exact cross-reference table, so a PDF reader parses
 * it as it would a real file. Text is limited to printable ASCII (escaped for PDF strings).
 */
export function makePdf(pages: string[][]): Uint8Array {
  const objects: string[] = [];
  const pageIds: number[] = [];
  // 1: catalog, 2: pages, 3: font; then a page and its content stream per page
  const fontId = 3;
  let next = 4;
  const pageObjects: Array<[number, string]> = [];
  for (const lines of pages) {
    const pageId = next++;
    const contentId = next++;
    pageIds.push(pageId);
    const esc = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
    const ops = lines.map((l, i) => `BT /F1 12 Tf 72 ${720 - i * 16} Td (${esc(l)}) Tj ET`).join("\n");
    pageObjects.push([
      pageId,
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${fontId} 0 R >> >> /Contents ${contentId} 0 R >>`,
    ]);
    pageObjects.push([contentId, `<< /Length ${ops.length} >>\nstream\n${ops}\nendstream`]);
  }
  objects[1] = "<< /Type /Catalog /Pages 2 0 R >>";
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(" ")}] /Count ${pageIds.length} >>`;
  objects[3] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";
  for (const [id, body] of pageObjects) objects[id] = body;
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = out.length;
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = out.length;
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}
