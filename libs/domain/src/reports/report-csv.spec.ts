import { CsvBuilder } from './report-csv';

describe('CsvBuilder', () => {
  it('writes the header and rows with CRLF line ends, numbers as they are and null as an empty cell', () => {
    const csv = new CsvBuilder(['serial_number', 'temperature', 'humidity']);
    csv.row(['CC-1001', -5.25, null]);
    expect(csv.toBuffer().toString('utf8')).toBe('serial_number,temperature,humidity\r\nCC-1001,-5.25,\r\n');
  });

  it('writes a text cell a spreadsheet would run as a formula with an apostrophe first, quoted as RFC 4180 needs', () => {
    const csv = new CsvBuilder(['serial_number']);
    csv.row(['=HYPERLINK("http://example.test")']);
    csv.row(['-1+2']);
    expect(csv.toBuffer().toString('utf8')).toBe(`serial_number\r\n"'=HYPERLINK(""http://example.test"")"\r\n'-1+2\r\n`);
  });
});
