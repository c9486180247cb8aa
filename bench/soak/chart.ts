/**
 * A small dependency-free SVG line chart: stacked panels sharing one time axis, each with its own
 * y scale, several series per panel, an optional shaded warm-up span. Used for the soak run's
 * chart over time (bench/results/soak.svg, docs/benchmarks/soak.svg).
 */

export interface ChartSeries {
  name: string;
  values: ReadonlyArray<number | null>;
}

export interface ChartPanel {
  title: string;
  unit: string;
  series: ChartSeries[];
}

export interface TimeChart {
  title: string;
  /** x value of every point, in seconds. */
  x: readonly number[];
  panels: ChartPanel[];
  /** x up to which the run was warming up (shaded), if any. */
  warmupUntil?: number;
}

const WIDTH = 860;
const PANEL_HEIGHT = 170;
const LEFT = 70;
const RIGHT = 180;
const TOP = 40;
const GAP = 40;
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A "nice" upper bound for an axis (1, 2, 2.5 or 5 × a power of ten) at or above `max`. */
export function niceCeiling(max: number): number {
  if (!Number.isFinite(max) || max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

const label = (value: number): string => (Math.abs(value) >= 1000 ? value.toLocaleString('en-US', { maximumFractionDigits: 0 }) : String(Math.round(value * 100) / 100));

export function renderTimeChart(chart: TimeChart): string {
  const plotWidth = WIDTH - LEFT - RIGHT;
  const height = TOP + chart.panels.length * (PANEL_HEIGHT + GAP) + 10;
  const xMax = Math.max(1, ...chart.x);
  const sx = (x: number): number => LEFT + (x / xMax) * plotWidth;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="14" font-weight="bold">${escapeXml(chart.title)}</text>`,
  ];
  chart.panels.forEach((panel, p) => {
    const top = TOP + p * (PANEL_HEIGHT + GAP);
    const bottom = top + PANEL_HEIGHT;
    const values = panel.series.flatMap((s) => s.values.filter((v): v is number => v !== null && Number.isFinite(v)));
    const yMax = niceCeiling(Math.max(0, ...values));
    const sy = (y: number): number => bottom - (y / yMax) * PANEL_HEIGHT;
    out.push(`<text x="${LEFT}" y="${top - 8}" font-weight="bold">${escapeXml(panel.title)} (${escapeXml(panel.unit)})</text>`);
    if (chart.warmupUntil !== undefined && chart.warmupUntil > 0) {
      out.push(`<rect x="${LEFT}" y="${top}" width="${(sx(Math.min(chart.warmupUntil, xMax)) - LEFT).toFixed(1)}" height="${PANEL_HEIGHT}" fill="#eeeeee"/>`);
      out.push(`<text x="${LEFT + 4}" y="${top + 12}" fill="#888888">warm-up</text>`);
    }
    for (let i = 0; i <= 4; i++) {
      const y = (yMax * i) / 4;
      out.push(`<line x1="${LEFT}" x2="${LEFT + plotWidth}" y1="${sy(y).toFixed(1)}" y2="${sy(y).toFixed(1)}" stroke="#dddddd"/>`);
      out.push(`<text x="${LEFT - 6}" y="${(sy(y) + 4).toFixed(1)}" text-anchor="end">${label(y)}</text>`);
    }
    out.push(`<line x1="${LEFT}" x2="${LEFT}" y1="${top}" y2="${bottom}" stroke="#333333"/>`);
    out.push(`<line x1="${LEFT}" x2="${LEFT + plotWidth}" y1="${bottom}" y2="${bottom}" stroke="#333333"/>`);
    for (let i = 0; i <= 6; i++) {
      const x = (xMax * i) / 6;
      out.push(`<text x="${sx(x).toFixed(1)}" y="${bottom + 14}" text-anchor="middle">${label(x / 60)} min</text>`);
    }
    panel.series.forEach((series, s) => {
      const colour = COLOURS[s % COLOURS.length];
      const segments: string[][] = [[]];
      series.values.forEach((v, i) => {
        if (v === null || !Number.isFinite(v) || i >= chart.x.length) {
          if (segments[segments.length - 1].length > 0) segments.push([]);
          return;
        }
        segments[segments.length - 1].push(`${sx(chart.x[i]).toFixed(1)},${sy(v).toFixed(1)}`);
      });
      for (const points of segments) {
        if (points.length === 1) out.push(`<circle cx="${points[0].split(',')[0]}" cy="${points[0].split(',')[1]}" r="2" fill="${colour}"/>`);
        else if (points.length > 1) out.push(`<polyline fill="none" stroke="${colour}" stroke-width="1.5" points="${points.join(' ')}"/>`);
      }
      const ly = top + 14 + s * 16;
      out.push(`<line x1="${LEFT + plotWidth + 12}" x2="${LEFT + plotWidth + 30}" y1="${ly - 4}" y2="${ly - 4}" stroke="${colour}" stroke-width="2"/>`);
      out.push(`<text x="${LEFT + plotWidth + 34}" y="${ly}">${escapeXml(series.name)}</text>`);
    });
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
