/**
 * The simple fonts' base encodings (ISO 32000 Annex D) as Unicode, 256 entries each; "" where
 * a code has no character. Printable ASCII is shared; each differs in its upper half.
 */
function table(upper: string, overrides: Record<number, string> = {}): string[] {
  const t: string[] = new Array<string>(256).fill("");
  for (let c = 32; c < 127; c++) t[c] = String.fromCharCode(c);
  [...upper].forEach((ch, i) => (t[128 + i] = ch === "\u0000" ? "" : ch));
  for (const [c, ch] of Object.entries(overrides)) t[Number(c)] = ch;
  return t;
}

const latin1Upper = Array.from({ length: 96 }, (_, i) => String.fromCharCode(0xa0 + i)).join("");

/** Windows code page 1252, as PDF's WinAnsiEncoding (its soft hyphen is a hyphen, 0x7F a bullet). */
export const WIN_ANSI = table("€\0‚ƒ„…†‡ˆ‰Š‹Œ\0Ž\0\0‘’“”•–—˜™š›œ\0žŸ" + latin1Upper, { 0x7f: "•", 0xad: "-" });

export const MAC_ROMAN = table(
  "ÄÅÇÉÑÖÜáàâäãåçéèêëíìîïñóòôöõúùûü†°¢£§•¶ß®©™´¨≠ÆØ∞±≤≥¥µ∂∑∏π∫ªºΩæø¿¡¬√ƒ≈∆«»… ÀÃÕŒœ–—“”‘’÷◊ÿŸ⁄€‹›ﬁﬂ‡·‚„‰ÂÊÁËÈÍÎÏÌÓÔ\0ÒÚÛÙıˆ˜¯˘˙˚¸˝˛ˇ",
);

export const STANDARD = table(
  "\0".repeat(33) +
    "¡¢£⁄¥ƒ§¤'“«‹›ﬁﬂ\0–†‡·\0¶•‚„”»…‰\0¿\0`´ˆ˜¯˘˙¨\0˚¸\0˝˛ˇ—" +
    "\0".repeat(16) +
    "Æ\0ª\0\0\0\0ŁØŒº\0\0\0\0\0æ\0\0\0ı\0\0łøœß",
  { 0x27: "’", 0x60: "‘" },
);
