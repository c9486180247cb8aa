/**
 * A small dependency-free SVG line chart: cost against data size on a logarithmic x axis, each
 * series normalised to its smallest-size figure, with the target as a dashed line. Pure (a string
 * out), unit tested in test/bench/scale.spec.ts.
 */

export interface ChartSeries {
  name: string;
  /** Colour slot (series sharing one are drawn alike, told apart by `dashed`); default: the series' position. */
  colour?: number;
  dashed?: boolean;
  /** x: the size (points), y: the figure relative to the smallest size (1 = unchanged). */
  values: Array<{ x: number; y: number }>;
}

export interface ChartInput {
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  series: ChartSeries[];
  /** A horizontal dashed line, e.g. { y: 1.2, label: 'target 1.2 ×' }. */
  threshold?: { y: number; label: string };
  width?: number;
  height?: number;
}

const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];

export const escapeXml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const fixed = (value: number): string => (Math.round(value * 10) / 10).toString();

/** Tick values for a linear axis from 0 to at least `max`: 5–10 round steps. */
export function linearTicks(max: number): number[] {
  const raw = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => max / s <= 8) ?? 10 * magnitude;
  const ticks: number[] = [];
  const tick = (i: number): number => Number((i * step).toPrecision(12));
  let i = 0;
  for (; tick(i) <= max + step * 1e-9; i++) ticks.push(tick(i));
  if (ticks[ticks.length - 1] < max - 1e-9) ticks.push(tick(i));
  return ticks;
}

export function formatTick(value: number): string {
  if (value >= 1_000_000) return `${Number((value / 1_000_000).toPrecision(3))} M`;
  if (value >= 1_000) return `${Number((value / 1_000).toPrecision(3))} k`;
  return String(Number(value.toPrecision(3)));
}

export function lineChartSvg(input: ChartInput): string {
  const width = input.width ?? 760;
  const height = input.height ?? 420;
  const legendWidth = 250;
  const margin = { top: input.subtitle ? 58 : 42, right: legendWidth + 20, bottom: 56, left: 64 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const xs = input.series.flatMap((s) => s.values.map((v) => v.x)).filter((x) => x > 0);
  const ys = input.series.flatMap((s) => s.values.map((v) => v.y)).filter((y) => Number.isFinite(y));
  if (xs.length === 0) throw new Error('nothing to plot');
  const xMin = Math.min(...xs);
  const xMax = Math.max(...xs);
  const logMin = Math.log10(xMin);
  const logSpan = Math.max(Math.log10(xMax) - logMin, 1e-9);
  const yMax = linearTicks(Math.max(...ys, input.threshold ? input.threshold.y * 1.1 : 0, 1.5));
  const top = yMax[yMax.length - 1];
  const px = (x: number): number => margin.left + ((Math.log10(x) - logMin) / logSpan) * plotW;
  const py = (y: number): number => margin.top + plotH - (Math.min(Math.max(y, 0), top) / top) * plotH;

  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`);
  out.push(`<text x="${margin.left}" y="22" font-size="15" font-weight="bold">${escapeXml(input.title)}</text>`);
  if (input.subtitle) out.push(`<text x="${margin.left}" y="40" fill="#555555">${escapeXml(input.subtitle)}</text>`);
  for (const tick of yMax) {
    const y = fixed(py(tick));
    out.push(`<line x1="${margin.left}" y1="${y}" x2="${margin.left + plotW}" y2="${y}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${margin.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${escapeXml(formatTick(tick))}</text>`);
  }
  for (const x of [...new Set(xs)].sort((a, b) => a - b)) {
    const X = fixed(px(x));
    out.push(`<line x1="${X}" y1="${margin.top}" x2="${X}" y2="${margin.top + plotH}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${X}" y="${margin.top + plotH + 16}" text-anchor="middle">${escapeXml(formatTick(x))}</text>`);
  }
  out.push(`<rect x="${margin.left}" y="${margin.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333333"/>`);
  out.push(`<text x="${margin.left + plotW / 2}" y="${height - 12}" text-anchor="middle">${escapeXml(input.xLabel)}</text>`);
  out.push(`<text transform="translate(16 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeXml(input.yLabel)}</text>`);
  if (input.threshold) {
    const y = fixed(py(input.threshold.y));
    out.push(`<line x1="${margin.left}" y1="${y}" x2="${margin.left + plotW}" y2="${y}" stroke="#000000" stroke-dasharray="6 4"/>`);
    out.push(`<text x="${margin.left + plotW - 4}" y="${Number(y) - 5}" text-anchor="end">${escapeXml(input.threshold.label)}</text>`);
  }
  input.series.forEach((series, index) => {
    const colour = COLOURS[(series.colour ?? index) % COLOURS.length];
    const dash = series.dashed ? ' stroke-dasharray="5 3"' : '';
    const points = series.values.filter((v) => v.x > 0 && Number.isFinite(v.y)).sort((a, b) => a.x - b.x);
    if (points.length > 0) {
      out.push(`<polyline fill="none" stroke="${colour}" stroke-width="2"${dash} points="${points.map((p) => `${fixed(px(p.x))},${fixed(py(p.y))}`).join(' ')}"/>`);
      for (const p of points) out.push(`<circle cx="${fixed(px(p.x))}" cy="${fixed(py(p.y))}" r="3.5" fill="${colour}"><title>${escapeXml(`${series.name}: ${p.y.toFixed(2)} × at ${formatTick(p.x)}`)}</title></circle>`);
    }
    const ly = margin.top + 8 + index * 20;
    const lx = width - legendWidth;
    out.push(`<line x1="${lx}" y1="${ly}" x2="${lx + 22}" y2="${ly}" stroke="${colour}" stroke-width="2"${dash}/>`);
    out.push(`<text x="${lx + 28}" y="${ly}" dominant-baseline="middle">${escapeXml(series.name)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
