/**
 * What the report font (DejaVu Sans, pdf-fonts.ts) can print: Latin with Latin-1, Extended-A and
 * Extended-B (Turkish, Polish, Czech…), Greek, Cyrillic, general punctuation, arrows and the
 * common math signs. Anything else (e.g. CJK) is folded to its base letter when it has one, or
 * replaced by "?", so that a customer-provided name never prints as empty boxes; line breaks and
 * tabs become spaces (every text is drawn on one line).
 */
const PRINTABLE_RANGES: Array<[number, number]> = [
  [0x20, 0x7e],
  [0xa0, 0x24f], // Latin-1 Supplement, Latin Extended-A and -B
  [0x370, 0x3ff], // Greek
  [0x400, 0x4ff], // Cyrillic
  [0x2010, 0x2044], // dashes, quotes, bullets, ellipsis, per mille
  [0x20ac, 0x20ac], // €
  [0x2122, 0x2122], // ™
  [0x2190, 0x2195], // arrows
  [0x2212, 0x2212], // minus
  [0x2264, 0x2265], // ≤ ≥
];

function printable(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return PRINTABLE_RANGES.some(([from, to]) => code >= from && code <= to);
}

export function pdfText(value: string): string {
  let out = '';
  for (const char of value) {
    if (char === '\n' || char === '\t' || char === '\r') out += ' ';
    else if (printable(char)) out += char;
    else {
      const base = char.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
      out += base.length > 0 && [...base].every(printable) ? base : '?';
    }
  }
  return out;
}
