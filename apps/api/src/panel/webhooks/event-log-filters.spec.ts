import { parseEventLogFilter } from './event-log-filters';

const ENDPOINT = '0193b7a2-5c1e-7d40-9a8b-2f4e6c8d0a1b';
const OTHER = '0193b7a2-5c1e-7d40-9a8b-2f4e6c8d0a1c';

describe('event log filters', () => {
  it('reads the form: empty fields are "any", times without a zone are UTC', () => {
    expect(parseEventLogFilter({}, [])).toEqual({
      input: { type: '', outcome: '', from: '', to: '', endpoint: '' },
      filter: { type: null, outcome: null, from: null, to: null, endpoint: null },
      problems: [],
    });
    const parsed = parseEventLogFilter({ type: 'webhook.test', outcome: 'failing', from: '2026-11-26T08:00', to: ' 2026-11-26T09:30:15+01:00', endpoint: ENDPOINT.toUpperCase() }, [ENDPOINT]);
    expect(parsed.problems).toEqual([]);
    expect(parsed.filter).toEqual({ type: 'webhook.test', outcome: 'failing', from: new Date('2026-11-26T08:00:00Z'), to: new Date('2026-11-26T08:30:15Z'), endpoint: ENDPOINT });
    expect(parseEventLogFilter({ from: '2026-11-26' }, []).filter.from).toEqual(new Date('2026-11-26T00:00:00Z'));
  });

  it('reads times as the panel writes them: "2026-11-26 08:00", with seconds, or followed by "UTC"', () => {
    expect(parseEventLogFilter({ from: '2026-11-26 08:00:15' }, []).filter.from).toEqual(new Date('2026-11-26T08:00:15Z'));
    expect(parseEventLogFilter({ from: '2026-11-26 08:00', to: '2026-11-26 09:00 utc' }, []).filter).toMatchObject({ from: new Date('2026-11-26T08:00:00Z'), to: new Date('2026-11-26T09:00:00Z') });
  });

  it('names every unusable field', () => {
    // Another company's endpoint (or none at all) is not one of the list: named like any other unusable value.
    const parsed = parseEventLogFilter({ type: 'alarm.exploded', outcome: 'lost', from: '2026-02-30T10:00', to: 'tomorrow', endpoint: OTHER }, [ENDPOINT]);
    expect(parsed.problems.map((p) => p.field)).toEqual(['type', 'outcome', 'from', 'to', 'endpoint']);
    expect(parsed.filter).toEqual({ type: null, outcome: null, from: null, to: null, endpoint: null });
    expect(parseEventLogFilter({ endpoint: 'not-an-id' }, [ENDPOINT]).problems).toEqual([{ field: 'endpoint', message: 'Choose an endpoint from the list.' }]);
    expect(parseEventLogFilter({ from: '2026-11-26T10:00', to: '2026-11-26T10:00' }, []).problems).toEqual([{ field: 'to', message: 'The end must be later than the start.' }]);
    expect(parseEventLogFilter({ type: ['alarm.created', 'alarm.resolved'] }, []).problems).toEqual([{ field: 'type', message: 'Give this filter once.' }]);
    for (const bad of ['2026-13-01T00:00', '2026-11-26T24:00', '1969-12-31T23:59', '2026-11-26T08:00+25:00', '2026-11-26 08:00+01:00 UTC', '8:00']) {
      expect(parseEventLogFilter({ from: bad }, []).problems.map((p) => p.field)).toEqual(['from']);
    }
  });
});
