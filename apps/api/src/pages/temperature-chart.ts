import { html, type Html } from '../common/html';

export interface ChartInput {
  from: Date;
  to: Date;
  buckets: Array<{ start: Date; end: Date; min: number | null; avg: number | null; max: number | null }>;
  limits: { min: number | null; max: number | null };
}

const WIDTH = 720;
const HEIGHT = 260;
const PAD = { left: 48, right: 12, top: 12, bottom: 28 };
const fmt = (value: number): string => value.toFixed(1);
const hhmm = (value: Date): string => `${value.toISOString().slice(5, 10)} ${value.toISOString().slice(11, 16)}`;

/**
 * The temperature of the shipment window as inline SVG (no script, no external resource, so the
 * page's CSP stays `default-src 'none'`): the min–max band and the average per bucket, with the
 * limits as dashed lines. Gaps without data break the line.
 */
export function temperatureChart(input: ChartInput): Html {
  const withData = input.buckets.filter((b) => b.avg !== null && b.min !== null && b.max !== null);
  const limits = [input.limits.min, input.limits.max].filter((v): v is number => v !== null);
  let low = Math.min(...limits, ...withData.map((b) => b.min as number), 2);
  let high = Math.max(...limits, ...withData.map((b) => b.max as number), 8);
  low = Math.floor(low - 1);
  high = Math.ceil(high + 1);
  const from = input.from.getTime();
  const span = Math.max(1, input.to.getTime() - from);
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const x = (at: number): number => PAD.left + (Math.min(Math.max(at - from, 0), span) / span) * plotW;
  const y = (value: number): number => PAD.top + plotH - ((value - low) / (high - low)) * plotH;
  const mid = (b: ChartInput['buckets'][number]): number => (Math.max(b.start.getTime(), from) + Math.min(b.end.getTime(), from + span)) / 2;

  // Consecutive buckets with data form one segment.
  const segments: Array<typeof withData> = [];
  let current: typeof withData = [];
  for (const bucket of input.buckets) {
    if (bucket.avg === null) {
      if (current.length > 0) segments.push(current);
      current = [];
    } else current.push(bucket);
  }
  if (current.length > 0) segments.push(current);

  const band = segments.map((s) => {
    const top = s.map((b) => `${x(mid(b)).toFixed(1)},${y(b.max as number).toFixed(1)}`);
    const bottom = [...s].reverse().map((b) => `${x(mid(b)).toFixed(1)},${y(b.min as number).toFixed(1)}`);
    return html`<polygon points="${[...top, ...bottom].join(' ')}" fill="#bfdbfe" stroke="none"/>`;
  });
  const lines = segments.map(
    (s) => html`<polyline points="${s.map((b) => `${x(mid(b)).toFixed(1)},${y(b.avg as number).toFixed(1)}`).join(' ')}" fill="none" stroke="#1d4ed8" stroke-width="2"/>`,
  );
  const ticks = [0, 1, 2, 3, 4].map((i) => low + ((high - low) * i) / 4);
  const grid = ticks.map(
    (v) => html`<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#e5e7eb"/><text x="${PAD.left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#374151">${fmt(v)}</text>`,
  );
  const limitLines = limits.map(
    (v) => html`<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#dc2626" stroke-dasharray="6 4" stroke-width="1.5"/>`,
  );
  const summary =
    withData.length === 0
      ? 'No temperature readings yet.'
      : `Temperature between ${fmt(Math.min(...withData.map((b) => b.min as number)))} and ${fmt(Math.max(...withData.map((b) => b.max as number)))} °C` +
        (limits.length > 0 ? `; limits ${limits.map(fmt).join(' and ')} °C.` : '.');
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="chart-title chart-desc">
<title id="chart-title">Temperature during the shipment (°C)</title>
<desc id="chart-desc">${summary}</desc>
${grid}
${band}
${limitLines}
${lines}
<line x1="${PAD.left}" x2="${PAD.left}" y1="${PAD.top}" y2="${HEIGHT - PAD.bottom}" stroke="#6b7280"/>
<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${HEIGHT - PAD.bottom}" y2="${HEIGHT - PAD.bottom}" stroke="#6b7280"/>
<text x="${PAD.left}" y="${HEIGHT - 8}" font-size="11" fill="#374151">${hhmm(input.from)} UTC</text>
<text x="${WIDTH - PAD.right}" y="${HEIGHT - 8}" font-size="11" fill="#374151" text-anchor="end">${hhmm(input.to)} UTC</text>
</svg>`;
}
