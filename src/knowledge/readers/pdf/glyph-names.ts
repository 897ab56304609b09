/**
 * Adobe Glyph List names to Unicode, compactly: the names simple fonts' /Differences commonly
 * use. Accented Latin letters (`Eacute`, `scaron`, …) are composed from their base letter and
 * accent rather than listed; `uniXXXX`, `uXXXX[XX]`, suffixed (`a.sc`) and ligature (`f_f_i`)
 * names are read by rule.
 */
const LISTED =
  "space 20 exclam 21 quotedbl 22 numbersign 23 dollar 24 percent 25 ampersand 26 quotesingle 27 " +
  "parenleft 28 parenright 29 asterisk 2a plus 2b comma 2c hyphen 2d period 2e slash 2f colon 3a " +
  "semicolon 3b less 3c equal 3d greater 3e question 3f at 40 bracketleft 5b backslash 5c " +
  "bracketright 5d asciicircum 5e underscore 5f grave 60 braceleft 7b bar 7c braceright 7d " +
  "asciitilde 7e zero 30 one 31 two 32 three 33 four 34 five 35 six 36 seven 37 eight 38 nine 39 " +
  "exclamdown a1 cent a2 sterling a3 currency a4 yen a5 brokenbar a6 section a7 dieresis a8 " +
  "copyright a9 ordfeminine aa guillemotleft ab guillemetleft ab logicalnot ac uni00AD 2d " +
  "registered ae macron af degree b0 plusminus b1 twosuperior b2 threesuperior b3 acute b4 mu b5 " +
  "mu1 b5 paragraph b6 periodcentered b7 middot b7 cedilla b8 onesuperior b9 ordmasculine ba " +
  "guillemotright bb guillemetright bb onequarter bc onehalf bd threequarters be questiondown bf " +
  "AE c6 Eth d0 multiply d7 Oslash d8 Thorn de germandbls df ae e6 eth f0 divide f7 oslash f8 " +
  "thorn fe dotlessi 131 IJ 132 ij 133 Lslash 141 lslash 142 OE 152 oe 153 florin 192 " +
  "circumflex 2c6 caron 2c7 breve 2d8 dotaccent 2d9 ring 2da ogonek 2db tilde 2dc hungarumlaut 2dd " +
  "endash 2013 emdash 2014 figuredash 2012 horizontalbar 2015 quoteleft 2018 quoteright 2019 " +
  "quotesinglbase 201a quotereversed 201b quotedblleft 201c quotedblright 201d quotedblbase 201e " +
  "dagger 2020 daggerdbl 2021 bullet 2022 ellipsis 2026 perthousand 2030 minute 2032 second 2033 " +
  "guilsinglleft 2039 guilsinglright 203a fraction 2044 Euro 20ac euro 20ac trademark 2122 " +
  "minus 2212 fi fb01 fl fb02 ff fb00 ffi fb03 ffl fb04 nbspace a0 nonbreakingspace a0 " +
  "sfthyphen ad softhyphen ad hyphentwo 2010 underscoredbl 2017 twodotenleader 2025 " +
  "onedotenleader 2024 arrowleft 2190 arrowup 2191 arrowright 2192 arrowdown 2193 " +
  "arrowboth 2194 arrowdblleft 21d0 arrowdblright 21d2 arrowdblboth 21d4 universal 2200 " +
  "partialdiff 2202 existential 2203 emptyset 2205 Delta 2206 gradient 2207 element 2208 " +
  "notelement 2209 suchthat 220b product 220f summation 2211 asteriskmath 2217 radical 221a " +
  "proportional 221d infinity 221e angle 2220 logicaland 2227 logicalor 2228 intersection 2229 " +
  "union 222a integral 222b therefore 2234 similar 223c congruent 2245 approxequal 2248 " +
  "notequal 2260 equivalence 2261 lessequal 2264 greaterequal 2265 propersubset 2282 " +
  "propersuperset 2283 reflexsubset 2286 reflexsuperset 2287 circleplus 2295 " +
  "circlemultiply 2297 perpendicular 22a5 dotmath 22c5 lozenge 25ca filledbox 25a0 " +
  "H22073 25a1 H18543 25aa H18551 25ab H18533 25cf circle 25cb blackcircle 25cf " +
  "whitecircle 25cb triagup 25b2 triagdn 25bc triagrt 25ba triaglf 25c4 club 2663 heart 2665 " +
  "diamond 2666 spade 2660 checkmark 2713 dotlessj 237 Ohm 2126 Omegagreek 3a9 mugreek 3bc " +
  "sigma1 3c2 theta1 3d1 phi1 3d5 omega1 3d6 Upsilon1 3d2 epsilon1 3f5 aleph 2135 weierstrass 2118 " +
  "Ifraktur 2111 Rfraktur 211c angleleft 2329 angleright 232a quotedblprime 2033 " +
  "longs 17f ng 14b Eng 14a kgreenlandic 138 napostrophe 149 Dcroat 110 dcroat 111 " +
  "Hbar 126 hbar 127 Tbar 166 tbar 167 Ldot 13f ldot 140 schwa 259 " +
  "commaaccent 326 space.alt 20 periodcentered.loclCAT b7 uni2010 2010 afii00208 2015 " +
  "afii61352 2116 numero 2116 estimated 212e centigrade 2103 dotlessi.alt 131";

const GREEK =
  "Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu Xi Omicron Pi Rho _ Sigma Tau Upsilon Phi Chi Psi Omega";

/** Accent names as they end glyph names, and the combining marks they compose with. */
const ACCENTS: Record<string, string> = {
  acute: "\u0301",
  grave: "\u0300",
  circumflex: "\u0302",
  dieresis: "\u0308",
  tilde: "\u0303",
  ring: "\u030a",
  cedilla: "\u0327",
  caron: "\u030c",
  breve: "\u0306",
  macron: "\u0304",
  ogonek: "\u0328",
  dotaccent: "\u0307",
  hungarumlaut: "\u030b",
  commaaccent: "\u0326",
};

let names: Map<string, string> | undefined;

function table(): Map<string, string> {
  if (names) return names;
  names = new Map();
  const parts = LISTED.split(" ");
  for (let i = 0; i + 1 < parts.length; i += 2) names.set(parts[i]!, String.fromCodePoint(parseInt(parts[i + 1]!, 16)));
  GREEK.split(" ").forEach((g, i) => {
    if (g === "_") return;
    names!.set(g, String.fromCharCode(0x391 + i));
    names!.set(g.toLowerCase(), String.fromCharCode(0x3b1 + i));
  });
  names.set("mu", "\u00b5"); // AGL's mu is the micro sign; Greek mu is `mugreek`
  names.set("Delta", "\u2206");
  return names;
}

const fromHex = (hex: string): string | undefined => {
  const cp = parseInt(hex, 16);
  return cp > 0 && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) ? String.fromCodePoint(cp) : undefined;
};

function single(name: string): string | undefined {
  const listed = table().get(name);
  if (listed !== undefined) return listed;
  if (/^[A-Za-z]$/.test(name)) return name;
  let m = /^uni((?:[0-9A-F]{4})+)$/.exec(name);
  if (m) {
    let s = "";
    for (let i = 0; i < m[1]!.length; i += 4) s += fromHex(m[1]!.slice(i, i + 4)) ?? "";
    return s || undefined;
  }
  m = /^u([0-9A-F]{4,6})$/.exec(name);
  if (m) return fromHex(m[1]!);
  m =
    /^([A-Za-z])(acute|grave|circumflex|dieresis|tilde|ring|cedilla|caron|breve|macron|ogonek|dotaccent|hungarumlaut|commaaccent)$/.exec(
      name,
    );
  if (m) {
    const c = (m[1]! + ACCENTS[m[2]!]).normalize("NFC");
    return c.length === 1 ? c : undefined;
  }
  // digits in their styled forms: `oneoldstyle`, `twosuperior`, `threeinferior`, …
  m = /^(zero|one|two|three|four|five|six|seven|eight|nine)(oldstyle|superior|inferior|taboldstyle)$/.exec(name);
  if (m) return table().get(m[1]!);
  // small capitals and other case-styled letters: `Asmall`, `aitalic`
  m = /^([A-Za-z]+)(small|italic)$/.exec(name);
  if (m) return single(m[1]!.toLowerCase() === m[1] ? m[1]! : m[1]!.toLowerCase());
  return undefined;
}

/** The Unicode text a glyph name stands for, or undefined (`g12`, `cid123`: names with no meaning). */
export function glyphToUnicode(name: string): string | undefined {
  const direct = single(name);
  if (direct !== undefined) return direct;
  const base = name.split(".")[0]!;
  if (!base) return undefined;
  if (base !== name) return glyphToUnicode(base);
  if (name.includes("_")) {
    const parts = name.split("_").map(single);
    return parts.every((p) => p !== undefined) ? parts.join("") : undefined;
  }
  return undefined;
}
