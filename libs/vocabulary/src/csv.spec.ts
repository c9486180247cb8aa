import { csvCell } from './csv';

describe('csvCell', () => {
  it('writes plain text, numbers and null as they are (null: an empty cell)', () => {
    expect(csvCell('CC-1001')).toBe('CC-1001');
    expect(csvCell(-5.25)).toBe('-5.25');
    expect(csvCell(0)).toBe('0');
    expect(csvCell(null)).toBe('');
  });

  it('quotes a cell holding a quote, a comma or a line break, doubling its quotes (RFC 4180)', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\r\nlines')).toBe('"two\r\nlines"');
  });

  it('prefixes text a spreadsheet would run as a formula with an apostrophe, then quotes as needed', () => {
    expect(['=1+1', '+1', '-1', '@SUM(A1)', '\tx'].map(csvCell)).toEqual(["'=1+1", "'+1", "'-1", "'@SUM(A1)", "'\tx"]);
    expect(csvCell('\rx')).toBe(`"'\rx"`);
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvCell('-5.25')).toBe("'-5.25");
  });
});
