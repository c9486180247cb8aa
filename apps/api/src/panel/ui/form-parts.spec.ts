import { timeRangeFields, utcMinute } from './form-parts';

describe('timeRangeFields', () => {
  it('asks for UTC text, as the panel writes times, not a browser date picker in the local time zone', () => {
    const fields = timeRangeFields({ from: '2026-11-26T08:00:00.000Z', to: 'tomorrow' }, []).value;
    expect(fields).not.toContain('datetime-local');
    expect(fields).toContain('<label for="from">From (UTC)</label>');
    expect(fields).toContain('<label for="to">Until (UTC, not included)</label>');
    expect(fields.match(/<input type="text" id="(from|to)" name="(from|to)"/g)).toHaveLength(2);
    expect(fields.match(/placeholder="YYYY-MM-DD HH:MM"/g)).toHaveLength(2);
    expect(fields.match(/<span class="zone" aria-hidden="true">UTC<\/span>/g)).toHaveLength(2);
    // An ISO time (a link's) is shown as the panel writes times; other text as typed.
    expect(fields).toContain('value="2026-11-26 08:00"');
    expect(fields).toContain('value="tomorrow"');
  });

  it('names a refused field', () => {
    const fields = timeRangeFields({ from: 'x', to: '' }, [{ field: 'from', message: 'The start is not a date and time.' }]).value;
    expect(fields).toContain('The start is not a date and time.');
    expect(fields).toMatch(/id="from"[^>]*aria-invalid="true"/);
  });
});

describe('utcMinute', () => {
  it('writes an ISO time as the panel writes times, to the minute unless seconds or milliseconds are set', () => {
    expect(utcMinute('2026-11-26T06:00:00.000Z')).toBe('2026-11-26 06:00');
    expect(utcMinute('2026-11-26T06:00Z')).toBe('2026-11-26 06:00');
    expect(utcMinute('2026-11-26T06:00:05.000Z')).toBe('2026-11-26 06:00:05');
    expect(utcMinute('2026-11-26T06:00:00.250Z')).toBe('2026-11-26 06:00:00.250');
  });

  it('keeps other text as typed (a refused value is shown back)', () => {
    expect(utcMinute('yesterday')).toBe('yesterday');
    expect(utcMinute('2026-11-26 06:00')).toBe('2026-11-26 06:00');
  });
});
