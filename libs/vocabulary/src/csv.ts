/**
 * One CSV cell (RFC 4180): quoted when it holds a quote, a comma or a line break. Text a
 * spreadsheet would run as a formula (=, +, -, @, a tab or a CR first) is prefixed with an
 * apostrophe: the exports are opened by people, and their text comes from callers. Numbers are
 * written as they are (a negative temperature is not a formula). Null is an empty cell.
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
