/** One CSV field (RFC 4180): quoted, with quotes doubled, when it holds a quote, comma or line break. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
