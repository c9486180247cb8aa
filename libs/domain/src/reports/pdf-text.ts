/**
 * The PDF uses the standard Helvetica fonts (nothing to embed or ship), which cover WinAnsi only.
 * Other characters are folded to their base letter (İ → I, ş → s) or replaced by "?", so that a
 * customer-provided name never prints as garbage.
 */
const WIN_ANSI_EXTRAS = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
const FOLDS: Record<string, string> = { ı: 'i', '→': '->', '←': '<-', '−': '-', '≤': '<=', '≥': '>=', ł: 'l', Ł: 'L', đ: 'd', Đ: 'D' };

function printable(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRAS.has(char);
}

export function pdfText(value: string): string {
  let out = '';
  for (const char of value) {
    if (printable(char)) out += char;
    else if (FOLDS[char]) out += FOLDS[char];
    else if (char === '\n' || char === '\t') out += ' ';
    else {
      const base = char.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
      out += base.length > 0 && [...base].every(printable) ? base : '?';
    }
  }
  return out;
}
