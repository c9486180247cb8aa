import type { EndpointHealth, HealthSeries, HealthTotals, MinuteSeries, WebhookEndpointView } from '@app/webhooks';
import { html, type Html } from '../../common/html';
import { timeHtml } from '../ui/layout';

/**
 * Delivery health of a webhook endpoint (issue 17): inline SVG charts drawn on the server (no
 * script), a table with the same figures for screen readers and keyboard users, and the
 * endpoint's current state. Every hour of a chart is a `<g class="hour">` whose data-* attributes
 * carry its numbers (data-hour, data-succeeded, data-failed, data-p50, data-p99), so tests and
 * tools read the chart's data rather than its pixels.
 */

const COUNT = new Intl.NumberFormat('en-US');
const count = (n: number): string => COUNT.format(n);

const COLOURS = { succeeded: '#15803d', failed: '#b42318', p50: '#1d4ed8', p99: '#7c3aed', axis: '#4b5563', grid: '#e2e8f0' } as const;

// Geometry of the viewBox; the SVG scales to its container's width (phone layout included).
const WIDTH = 720;
const LEFT = 66;
const RIGHT = 12;
const PLOT_WIDTH = WIDTH - LEFT - RIGHT;
const BARS_TOP = 34;
const BARS_HEIGHT = 120;
const LATENCY_TOP = BARS_TOP + BARS_HEIGHT + 34;
const LATENCY_HEIGHT = 70;
const HEIGHT = LATENCY_TOP + LATENCY_HEIGHT + 24;
const MIN_SEGMENT = 2;

const fixed = (n: number): string => String(Math.round(n * 10) / 10);

/** "98.7 %", rounded down so a single failure never shows as 100 %. */
export function percentText(rate: number): string {
  return `${(Math.floor(rate * 1000) / 10).toFixed(1)} %`;
}

/** "98.7 % of 1,532 attempts", "no attempts". */
export function successRateText(totals: HealthTotals | undefined): string {
  if (!totals || totals.success_rate === null) return 'no attempts';
  return `${percentText(totals.success_rate)} of ${count(totals.attempts)} attempt${totals.attempts === 1 ? '' : 's'}`;
}

/** "≤ 250 ms" for an hour's bucket bound; "212 ms" for an exact figure (the minute chart's, from the attempt log). */
export function latencyText(ms: number | null, exact = false): string {
  if (ms === null) return 'none';
  const value = ms >= 1000 ? `${fixed(ms / 1000)} s` : `${count(ms)} ms`;
  return exact ? value : `≤ ${value}`;
}

/** A round axis maximum at or above `n` (1, 2, 5 × 10^k). */
function niceMax(n: number): number {
  if (n <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(n));
  return [1, 2, 5, 10].map((m) => m * power).find((m) => m >= n) ?? 10 * power;
}

const hourLabel = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** One bar of a chart: an hour of the rollup or a minute of the attempt log. */
interface ChartBucket {
  at: string;
  succeeded: number;
  failed: number;
  p50_ms: number | null;
  p99_ms: number | null;
}

/** What a chart draws, whichever the period: hours (24 h, 7 days) or minutes (the last hour). */
interface ChartSeries {
  unit: 'hour' | 'minute';
  buckets: ChartBucket[];
  totals: HealthTotals;
  p50_ms: number | null;
  p99_ms: number | null;
  /** Minutes before this are not in the attempt log any more (unknown, not empty). */
  coveredFrom: string | null;
}

function chartSeries(series: HealthSeries | MinuteSeries): ChartSeries {
  const { totals, p50_ms, p99_ms } = series;
  if ('hours' in series) return { unit: 'hour', buckets: series.hours.map(({ hour, ...rest }) => ({ at: hour, ...rest })), totals, p50_ms, p99_ms, coveredFrom: null };
  return { unit: 'minute', buckets: series.minutes.map(({ minute, ...rest }) => ({ at: minute, ...rest })), totals, p50_ms, p99_ms, coveredFrom: series.covered_from };
}

function seriesSummary(series: ChartSeries): string {
  const t = series.totals;
  const unknown = series.coveredFrom ? ` The attempt log keeps the last 100 attempts: attempts before ${hourLabel(series.coveredFrom)} are not counted.` : '';
  if (t.attempts === 0) return `No delivery attempts in this period.${unknown}`;
  return `${count(t.attempts)} attempts: ${count(t.succeeded)} succeeded, ${count(t.failed)} failed (${percentText(t.success_rate ?? 0)} succeeded). Latency p50 ${latencyText(series.p50_ms, series.unit === 'minute')}, p99 ${latencyText(series.p99_ms, series.unit === 'minute')}.${unknown}`;
}

/** Which bars get an x-axis label: every 10 minutes over an hour, every 6 hours over a day, every midnight over a week. */
function labelled(series: ChartSeries, index: number): string | null {
  const iso = series.buckets[index].at;
  if (series.unit === 'minute') return Number(iso.slice(14, 16)) % 10 === 0 ? iso.slice(11, 16) : null;
  if (series.buckets.length <= 24) return Number(iso.slice(11, 13)) % 6 === 0 ? iso.slice(11, 16) : null;
  return iso.slice(11, 13) === '00' ? iso.slice(5, 10) : null;
}

function legend(y: number): Html {
  const items: Array<[string, string, 'box' | 'line']> = [
    ['Succeeded', COLOURS.succeeded, 'box'],
    ['Failed', COLOURS.failed, 'box'],
    ['p50 latency', COLOURS.p50, 'line'],
    ['p99 latency', COLOURS.p99, 'line'],
  ];
  return html`<g class="legend" aria-hidden="true">${items.map(([label, colour, kind], i) => {
    const x = LEFT + i * 150;
    const mark =
      kind === 'box'
        ? html`<rect x="${x}" y="${y - 10}" width="12" height="12" fill="${colour}"/>`
        : html`<line x1="${x}" y1="${y - 4}" x2="${x + 14}" y2="${y - 4}" stroke="${colour}" stroke-width="3"${label.startsWith('p99') ? html` stroke-dasharray="4 2"` : html``}/>`;
    return html`${mark}<text x="${x + 18}" y="${y}" font-size="13" fill="#1b1f24">${label}</text>`;
  })}</g>`;
}

/**
 * The chart of one period as an inline SVG: attempts per hour as stacked bars (succeeded below,
 * failed on top) and p50/p99 latency per hour as lines, with axes, a legend and a title and
 * description for assistive technology (which reaches the figures through the table beside it).
 */
export function healthChartSvg(period: HealthSeries | MinuteSeries, options: { id: string; title: string }): Html {
  const series = chartSeries(period);
  const hours = series.buckets;
  const unit = series.unit;
  const slot = PLOT_WIDTH / Math.max(1, hours.length);
  const barWidth = Math.max(1, slot * 0.8);
  const attemptsMax = niceMax(Math.max(0, ...hours.map((h) => h.succeeded + h.failed)));
  const latencyMax = niceMax(Math.max(0, ...hours.map((h) => h.p99_ms ?? 0)));
  const segmentHeight = (n: number): number => (n === 0 ? 0 : Math.max(MIN_SEGMENT, (n / attemptsMax) * BARS_HEIGHT));
  const latencyY = (ms: number): number => LATENCY_TOP + LATENCY_HEIGHT - (ms / latencyMax) * LATENCY_HEIGHT;
  const centre = (i: number): number => LEFT + i * slot + slot / 2;
  const lone = ([x, y]: [number, number]): Array<[number, number]> => [
    [x - Math.max(slot * 0.4, 6), y],
    [x + Math.max(slot * 0.4, 6), y],
  ];

  const bars = hours.map((h, i) => {
    const x = fixed(LEFT + i * slot + (slot - barWidth) / 2);
    // A segment is at least MIN_SEGMENT high, so a few failures next to many successes still show.
    const okTop = BARS_TOP + BARS_HEIGHT - segmentHeight(h.succeeded);
    const failTop = okTop - segmentHeight(h.failed);
    const tip = `${hourLabel(h.at)}: ${count(h.succeeded)} succeeded, ${count(h.failed)} failed; p50 ${latencyText(h.p50_ms, unit === 'minute')}, p99 ${latencyText(h.p99_ms, unit === 'minute')}`;
    return html`<g class="${unit}" data-${unit}="${h.at}" data-succeeded="${h.succeeded}" data-failed="${h.failed}" data-p50="${h.p50_ms ?? ''}" data-p99="${h.p99_ms ?? ''}"><title>${tip}</title>${
      h.succeeded > 0 ? html`<rect class="succeeded" x="${x}" y="${fixed(okTop)}" width="${fixed(barWidth)}" height="${fixed(BARS_TOP + BARS_HEIGHT - okTop)}" fill="${COLOURS.succeeded}"/>` : html``
    }${h.failed > 0 ? html`<rect class="failed" x="${x}" y="${fixed(failTop)}" width="${fixed(barWidth)}" height="${fixed(okTop - failTop)}" fill="${COLOURS.failed}"/>` : html``}</g>`;
  });

  const line = (pick: (h: ChartBucket) => number | null, colour: string, name: string, dashed: boolean): Html => {
    // Hours without attempts break the line; a lone hour is a short line across its bar (a dot is lost at a chart's edge).
    const runs: Array<Array<[number, number]>> = [[]];
    hours.forEach((h, i) => {
      const ms = pick(h);
      if (ms === null) runs.push([]);
      else runs[runs.length - 1].push([centre(i), latencyY(ms)]);
    });
    return html`<g class="latency ${name}">${runs
      .filter((run) => run.length > 0)
      .map((run) =>
        html`<polyline points="${(run.length === 1 ? lone(run[0]) : run).map(([x, y]) => `${fixed(x)},${fixed(y)}`).join(' ')}" fill="none" stroke="${colour}" stroke-width="${run.length === 1 ? 3 : 2}"${dashed ? html` stroke-dasharray="4 2"` : html``}/>`,
      )}</g>`;
  };

  const xLabels = hours.map((_, i) => {
    const label = labelled(series, i);
    return label === null ? html`` : html`<text x="${fixed(LEFT + i * slot)}" y="${HEIGHT - 6}" text-anchor="middle">${label}</text>`;
  });
  const xTicks = hours.map((_, i) => (labelled(series, i) === null ? html`` : html`<line x1="${fixed(LEFT + i * slot)}" y1="${BARS_TOP}" x2="${fixed(LEFT + i * slot)}" y2="${LATENCY_TOP + LATENCY_HEIGHT}" stroke="${COLOURS.grid}"/>`));
  const latencyAxisLabel = latencyMax >= 1000 ? `${fixed(latencyMax / 1000)} s` : `${latencyMax} ms`;
  // Minutes older than the attempt log reaches: shaded, "not kept", rather than drawn as empty.
  const unknownSlots = series.coveredFrom ? Math.max(0, Math.min(hours.length, Math.floor((Date.parse(series.coveredFrom) - Date.parse(hours[0].at)) / 60_000))) : 0;
  const unknown =
    unknownSlots === 0
      ? html``
      : html`<g class="not-kept" data-minutes="${unknownSlots}"><rect x="${LEFT}" y="${BARS_TOP}" width="${fixed(unknownSlots * slot)}" height="${LATENCY_TOP + LATENCY_HEIGHT - BARS_TOP}" fill="#f1f5f9"/><text x="${fixed(LEFT + (unknownSlots * slot) / 2)}" y="${BARS_TOP + BARS_HEIGHT / 2}" text-anchor="middle" font-size="12" fill="${COLOURS.axis}">not kept</text></g>`;

  return html`<svg class="health-chart" id="${options.id}" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" role="img" aria-labelledby="${options.id}-title ${options.id}-desc" data-${unit}s="${hours.length}" data-attempts="${series.totals.attempts}" data-succeeded="${series.totals.succeeded}" data-failed="${series.totals.failed}" preserveAspectRatio="xMidYMid meet" xmlns="http://www.w3.org/2000/svg">
<title id="${options.id}-title">${options.title}</title>
<desc id="${options.id}-desc">${seriesSummary(series)} Bars: attempts per ${unit}, succeeded and failed. Lines: p50 and p99 attempt latency per ${unit}${unit === 'hour' ? ' (upper bounds of log-spaced buckets)' : ''}.</desc>
${legend(16)}
${unknown}
<g class="grid" aria-hidden="true">${xTicks}
<line x1="${LEFT}" y1="${BARS_TOP + BARS_HEIGHT}" x2="${WIDTH - RIGHT}" y2="${BARS_TOP + BARS_HEIGHT}" stroke="${COLOURS.axis}"/>
<line x1="${LEFT}" y1="${LATENCY_TOP + LATENCY_HEIGHT}" x2="${WIDTH - RIGHT}" y2="${LATENCY_TOP + LATENCY_HEIGHT}" stroke="${COLOURS.axis}"/>
<line x1="${LEFT}" y1="${BARS_TOP}" x2="${LEFT}" y2="${BARS_TOP + BARS_HEIGHT}" stroke="${COLOURS.axis}"/>
<line x1="${LEFT}" y1="${LATENCY_TOP}" x2="${LEFT}" y2="${LATENCY_TOP + LATENCY_HEIGHT}" stroke="${COLOURS.axis}"/>
</g>
<g class="axis" aria-hidden="true" font-size="12" fill="${COLOURS.axis}">
<text x="${LEFT - 6}" y="${BARS_TOP + 4}" text-anchor="end">${count(attemptsMax)}</text>
<text x="${LEFT - 6}" y="${BARS_TOP + BARS_HEIGHT}" text-anchor="end">0</text>
<text x="14" y="${BARS_TOP + BARS_HEIGHT / 2}" text-anchor="middle" transform="rotate(-90 14 ${BARS_TOP + BARS_HEIGHT / 2})">attempts</text>
<text x="${LEFT - 6}" y="${LATENCY_TOP + 4}" text-anchor="end">${latencyAxisLabel}</text>
<text x="${LEFT - 6}" y="${LATENCY_TOP + LATENCY_HEIGHT}" text-anchor="end">0</text>
<text x="14" y="${LATENCY_TOP + LATENCY_HEIGHT / 2}" text-anchor="middle" transform="rotate(-90 14 ${LATENCY_TOP + LATENCY_HEIGHT / 2})">latency</text>
${xLabels}
<text class="current-hour" x="${fixed(Math.min(centre(hours.length - 1) + 12, WIDTH - RIGHT))}" y="${BARS_TOP - 6}" text-anchor="end" font-weight="600">now</text>
</g>
<g class="bars">${bars}</g>
${line((h) => h.p50_ms, COLOURS.p50, 'p50', false)}
${line((h) => h.p99_ms, COLOURS.p99, 'p99', true)}
</svg>`;
}

/** The same figures as the chart, hours (or minutes) with attempts only (newest first). */
function healthTable(series: ChartSeries, caption: string): Html {
  const rows = series.buckets.filter((h) => h.succeeded + h.failed > 0).reverse();
  if (rows.length === 0) return html`<p class="empty">No delivery attempts in this period.</p>`;
  const unit = series.unit === 'hour' ? 'Hour' : 'Minute';
  return html`<div class="table-wrap"><table class="responsive"><caption>${caption}</caption>
<thead><tr><th scope="col">${unit}</th><th scope="col">Succeeded</th><th scope="col">Failed</th><th scope="col">p50 latency</th><th scope="col">p99 latency</th></tr></thead>
<tbody>${rows.map(
    (h) => html`<tr>
<td data-label="${unit}"><time datetime="${h.at}">${hourLabel(h.at)}</time></td>
<td data-label="Succeeded">${count(h.succeeded)}</td>
<td data-label="Failed">${count(h.failed)}</td>
<td data-label="p50 latency">${latencyText(h.p50_ms, series.unit === 'minute')}</td>
<td data-label="p99 latency">${latencyText(h.p99_ms, series.unit === 'minute')}</td>
</tr>`,
  )}</tbody></table></div>`;
}

function period(data: HealthSeries | MinuteSeries, id: string, heading: string): Html {
  const series = chartSeries(data);
  return html`<section class="health-period" aria-labelledby="${id}-heading">
<h3 id="${id}-heading">${heading}</h3>
<p class="health-summary" id="${id}-summary">${seriesSummary(series)}</p>
<figure class="health-figure">${healthChartSvg(data, { id, title: `Delivery attempts and latency per ${series.unit}, ${heading.toLowerCase()}` })}</figure>
<details class="health-details"><summary>Figures per ${series.unit} (table)</summary>
${healthTable(series, `${heading}: ${series.unit}s with attempts, newest first`)}
</details>
</section>`;
}

function stateHtml(endpoint: WebhookEndpointView): Html {
  const failures = html`${count(endpoint.consecutive_failures)} failed attempt${endpoint.consecutive_failures === 1 ? '' : 's'} in a row so far`;
  if (endpoint.status === 'enabled') return html`<p class="health-state" id="health-state"><span class="status ok">Enabled</span> · ${failures} (disabled after 20).</p>`;
  return html`<p class="health-state" id="health-state"><span class="status bad">Disabled</span> since ${timeHtml(endpoint.disabled_at, 'unknown')}${
    endpoint.disabled_reason ? html`: ${endpoint.disabled_reason}` : html``
  } · ${failures}.</p>`;
}

/** The "Delivery health" section of an endpoint's page: the state and the last 24 hours first (the top of a phone's screen). */
export function endpointHealthSection(endpoint: WebhookEndpointView, health: EndpointHealth): Html {
  return html`<section class="health" id="health" aria-labelledby="health-heading">
<h2 id="health-heading">Delivery health</h2>
${stateHtml(endpoint)}
${period(health.last_24_hours, 'health-24h', 'Last 24 hours')}
<p class="hint">Every delivery attempt counts, retries included; an attempt fails when the receiver does not answer with a 2xx status in time. Latency is the time from the start of an attempt to the receiver's answer (or the error), shown as the upper bound of its bucket (10, 25, 50, 100, 250, 500 ms, 1, 2.5, 5, 10 s). Hours are UTC; the last one is the current hour so far. As of ${timeHtml(health.as_of)}.</p>
${period(health.last_hour, 'health-1h', 'Last hour')}
<p class="hint">Per minute, from the attempt log (the last 100 attempts): a short outage shows minutes wide here; latency is exact.</p>
${period(health.last_7_days, 'health-7d', 'Last 7 days')}
</section>`;
}

/** The overview's one-line success rate of an endpoint over the last 24 hours. */
export function successRateHtml(totals: HealthTotals | undefined): Html {
  const rate = totals?.success_rate ?? null;
  const tone = rate === null ? 'muted' : rate >= 0.99 ? 'ok' : 'bad';
  return html`<span class="success-rate ${tone}" data-attempts="${totals?.attempts ?? 0}" data-succeeded="${totals?.succeeded ?? 0}">${successRateText(totals)}</span>`;
}
