import type { PackedPoints, PointRow } from '@app/domain';
import { presentPackedPoints, presentPoint } from './telemetry.presenter';

/** A row as the pg driver would have made it from the same PostgreSQL text (parseFloat, Date). */
function driverRow(fields: string[]): PointRow {
  const n = (f: string): number | null => (f === '' ? null : parseFloat(f));
  return {
    recorded_at: new Date(Number(fields[0])),
    temperature: n(fields[1]),
    humidity: n(fields[2]),
    light: n(fields[3]),
    shock: n(fields[4]),
    battery: n(fields[5]),
    latitude: n(fields[6]),
    longitude: n(fields[7]),
  };
}

const NAMES = ['temperature', 'humidity', 'light', 'shock', 'battery', 'latitude', 'longitude'];
/** As the packedPoints statement writes a point: ms, '|', then `,"name":text` per field ('' = NULL → null) and '}'. */
const pack = (points: string[][]): PackedPoints => ({
  count: points.length,
  points: points.map((p) => `${p[0]}|${NAMES.map((name, i) => `,"${name}":${p[i + 1] === '' ? 'null' : p[i + 1]}`).join('')}}`).join('\n'),
});

describe('presentPackedPoints: the JSON text of a packed page, as finish() + presentPoint would write it', () => {
  // PostgreSQL's text output in the shapes JSON.stringify writes differently: exponents, -0,
  // NaN/Infinity, NULL, float4 shortest forms.
  const points = [
    ['1741608000000', '5', '60.5', '', '0.05', '100', '52.37', '4.89'],
    ['1741608060123', '-0', '1e-05', '5e-07', '1.5e+20', '1e+21', '-33.123456789012', '-0.000123'],
    ['1741608120999', 'NaN', 'Infinity', '-Infinity', '21.3', '3.4028235e+38', '', ''],
    ['1741608180000', '', '', '', '', '', '', ''],
    ['1741694399999', '-1.25e-05', '-0.5', '7', '-7e-07', '1e+15', '123456789012345', '-1.7976931348623157e+308'],
    ['1741694400000', '0', '-1', '-Infinity', '0.001', '1e-04', '12.5', '0.0001'],
  ];

  it('writes the same JSON, field for field and byte for byte', () => {
    const page = presentPackedPoints(pack(points), 10);
    expect(page.json).toBe(JSON.stringify(points.map((p) => presentPoint(driverRow(p)))));
    expect(page.more).toBe(false);
    expect(page.last).toEqual(new Date(1741694400000));
  });

  it('keeps the extra point out of the page and reports it as more, the cursor at the last point shown', () => {
    const page = presentPackedPoints(pack(points), 2);
    expect(JSON.parse(page.json)).toEqual(points.slice(0, 2).map((p) => JSON.parse(JSON.stringify(presentPoint(driverRow(p))))));
    expect(page.more).toBe(true);
    expect(page.last?.toISOString()).toBe('2025-03-10T12:01:00.123Z');
  });

  it('an empty page is an empty array', () => {
    expect(presentPackedPoints({ count: 0, points: '' }, 100)).toEqual({ json: '[]', last: null, more: false });
  });
});

describe('presentPackedPoints: times as toISOString writes them', () => {
  it('formats any instant like Date.toISOString, across days, years and the edges', () => {
    const instants = [0, 1, 59_999, 86_399_999, 86_400_000, 951_782_400_000, 1_741_608_000_000, 253_402_300_799_999, 253_402_300_800_000, -1, -86_400_001];
    for (let ms = 1_741_000_000_000; ms < 1_741_000_000_000 + 3 * 86_400_000; ms += 7_777_777) instants.push(ms);
    const page = presentPackedPoints(pack(instants.map((ms) => [String(ms), '', '', '', '', '', '', ''])), instants.length);
    expect((JSON.parse(page.json) as Array<{ recorded_at: string }>).map((p) => p.recorded_at)).toEqual(instants.map((ms) => new Date(ms).toISOString()));
  });
});
