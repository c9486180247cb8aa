import { parseEventLogFilter, parseFilterTime } from './event-log-filters';

describe('event log filters', () => {
  it('reads the form: empty fields are "any", times without a zone are UTC', () => {
    expect(parseEventLogFilter({})).toEqual({ input: { type: '', outcome: '', from: '', to: '' }, filter: { type: null, outcome: null, from: null, to: null }, problems: [] });
    const parsed = parseEventLogFilter({ type: 'webhook.test', outcome: 'failing', from: '2026-11-26T08:00', to: ' 2026-11-26T09:30:15+01:00 ' });
    expect(parsed.problems).toEqual([]);
    expect(parsed.filter).toEqual({ type: 'webhook.test', outcome: 'failing', from: new Date('2026-11-26T08:00:00Z'), to: new Date('2026-11-26T08:30:15Z') });
    expect(parseFilterTime('2026-11-26')).toEqual(new Date('2026-11-26T00:00:00Z'));
  });

  it('names every unusable field', () => {
    const parsed = parseEventLogFilter({ type: 'alarm.exploded', outcome: 'lost', from: '2026-02-30T10:00', to: 'tomorrow' });
    expect(parsed.problems.map((p) => p.field)).toEqual(['type', 'outcome', 'from', 'to']);
    expect(parsed.filter).toEqual({ type: null, outcome: null, from: null, to: null });
    expect(parseEventLogFilter({ from: '2026-11-26T10:00', to: '2026-11-26T10:00' }).problems).toEqual([{ field: 'to', message: 'The end must be later than the start.' }]);
    expect(parseEventLogFilter({ type: ['alarm.created', 'alarm.resolved'] }).problems).toEqual([{ field: 'type', message: 'Give this filter once.' }]);
    for (const bad of ['2026-13-01T00:00', '2026-11-26T24:00', '1969-12-31T23:59', '2026-11-26T08:00+25:00', '2026-11-26 08:00', '8:00']) expect(parseFilterTime(bad)).toBeNull();
  });
});
