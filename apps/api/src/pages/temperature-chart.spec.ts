import { temperatureChart } from './temperature-chart';

const at = (hour: number): Date => new Date(Date.UTC(2025, 6, 1, hour));
const bucket = (hour: number, min: number | null, avg: number | null, max: number | null) => ({ start: at(hour), end: at(hour + 1), min, avg, max });

describe('temperatureChart', () => {
  it('draws band and average per run of buckets with data, the limits, and an accessible summary', () => {
    const svg = temperatureChart({
      from: at(0),
      to: at(4),
      buckets: [bucket(0, 4, 5, 6), bucket(1, 5, 6, 7), bucket(2, null, null, null), bucket(3, 8, 9, 10)],
      limits: { min: 2, max: 8 },
    }).value;
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.match(/<polyline /g)).toHaveLength(2); // the gap splits the line
    expect(svg.match(/<polygon /g)).toHaveLength(2);
    expect(svg.match(/stroke-dasharray/g)).toHaveLength(2);
    expect(svg).toContain('<desc id="chart-desc">Temperature between 4.0 and 10.0 °C; limits 2.0 and 8.0 °C.</desc>');
    expect(svg).not.toMatch(/<script|href=|url\(/);
  });

  it('says so when there is no reading', () => {
    expect(temperatureChart({ from: at(0), to: at(1), buckets: [bucket(0, null, null, null)], limits: { min: null, max: null } }).value).toContain('No temperature readings yet.');
  });
});
