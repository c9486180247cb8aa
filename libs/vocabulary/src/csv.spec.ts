import { csvField } from './csv';

describe('csvField (RFC 4180)', () => {
  it('leaves plain text alone and quotes a field with a quote, comma or line break', () => {
    expect(csvField('-5.25')).toBe('-5.25');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\r\nlines')).toBe('"two\r\nlines"');
    expect(csvField('')).toBe('');
  });
});
