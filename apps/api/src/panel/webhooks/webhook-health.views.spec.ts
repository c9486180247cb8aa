import type { WebhookEndpointView } from '@app/webhooks';
import { healthSeries, LATENCY_BUCKET_BOUNDS_MS, minuteSeries } from '@app/webhooks/health';
import { endpointHealthSection, healthChartSvg, percentText, successRateHtml, successRateText } from './webhook-health.views';

const buckets = (counts: Record<number, number>): number[] => Array.from({ length: LATENCY_BUCKET_BOUNDS_MS.length + 1 }, (_, i) => counts[i] ?? 0);
const NOW = new Date('2026-11-26T10:17:00Z');
const ROWS = [
  { hour: new Date('2026-11-26T08:00:00Z'), succeeded: 0, failed: 5, latency_buckets: buckets({ 5: 5 }), max_duration_ms: 480 },
  { hour: new Date('2026-11-26T09:00:00Z'), succeeded: 2, failed: 1, latency_buckets: buckets({ 1: 2, 6: 1 }), max_duration_ms: 900 },
  { hour: new Date('2026-11-26T10:00:00Z'), succeeded: 1532, failed: 0, latency_buckets: buckets({ 1: 1532 }), max_duration_ms: 20 },
];

/** The data-* attributes of every hour group, as the e2e test reads them in the browser. */
function hoursOf(svg: string): Array<Record<string, string>> {
  return [...svg.matchAll(/<g class="hour" ([^>]*)>/g)].map((m) => Object.fromEntries([...m[1].matchAll(/data-([\w-]+)="([^"]*)"/g)].map((a) => [a[1], a[2]])));
}

describe('delivery health views', () => {
  it('draws one group per hour carrying its numbers, bars for succeeded and failed, and latency lines', () => {
    const svg = healthChartSvg(healthSeries(ROWS, NOW, 24), { id: 'c', title: 'Chart' }).value;
    const hours = hoursOf(svg);
    expect(hours).toHaveLength(24);
    expect(hours[21]).toEqual({ hour: '2026-11-26T08:00:00.000Z', succeeded: '0', failed: '5', p50: '480', p99: '480' });
    expect(hours[22]).toEqual({ hour: '2026-11-26T09:00:00.000Z', succeeded: '2', failed: '1', p50: '25', p99: '900' });
    expect(hours[0]).toEqual({ hour: '2026-11-25T11:00:00.000Z', succeeded: '0', failed: '0', p50: '', p99: '' });
    expect(svg.match(/<rect class="failed"/g)).toHaveLength(2);
    expect(svg).toMatch(/<rect class="failed" [^>]*height="2"/); // 5 failures beside 1,532 successes stay visible
    expect(svg.match(/<rect class="succeeded"/g)).toHaveLength(2);
    expect(svg.match(/<polyline /g)).toHaveLength(2); // p50 and p99 over three consecutive hours
    expect(svg).toMatch(/^<svg class="health-chart" id="c" viewBox="0 0 720 \d+" width="100%" role="img" aria-labelledby="c-title c-desc"/);
    expect(svg).toContain('<title id="c-title">Chart</title>');
    expect(svg).toContain('1,540 attempts: 1,534 succeeded, 6 failed (99.6 % succeeded). Latency p50 ≤ 25 ms, p99 ≤ 25 ms.');
    expect(svg).toContain('>Succeeded</text>');
    expect(svg).toContain('>p99 latency</text>');
    expect(svg).not.toMatch(/<script|href=|url\(|style=/);
  });

  it('draws a lone hour\'s latency as a short line across its bar, not a dot, and labels the current hour', () => {
    const svg = healthChartSvg(healthSeries([ROWS[0]], NOW, 24), { id: 'l', title: 'Lone' }).value;
    expect(svg).not.toContain('<circle');
    const lines = [...svg.matchAll(/<polyline points="([\d.]+),([\d.]+) ([\d.]+),([\d.]+)"/g)];
    expect(lines).toHaveLength(2);
    for (const [, x1, y1, x2, y2] of lines) {
      expect(Number(x2) - Number(x1)).toBeGreaterThan(10);
      expect(y1).toBe(y2);
    }
    expect(svg).toMatch(/<text class="current-hour" [^>]*>now<\/text>/);
  });

  it('labels a week by day and says when there were no attempts', () => {
    const svg = healthChartSvg(healthSeries([], NOW, 168), { id: 'w', title: 'Week' }).value;
    expect(hoursOf(svg)).toHaveLength(168);
    expect(svg).toContain('No delivery attempts in this period.');
    expect(svg).toContain('>11-26</text>');
    expect(svg).not.toMatch(/<rect class=|<polyline/);
  });

  it('shows the current state and a table with the same figures', () => {
    const endpoint = {
      id: 'e1', account_id: 'a', url: 'https://x.example/h', events: ['alarm.raised'], description: null, status: 'disabled', consecutive_failures: 20,
      disabled_at: '2026-11-26T09:30:00.000Z', disabled_reason: 'disabled automatically after 20 consecutive failed attempts (last: HTTP 500)',
      secret_rotated_at: null, created_at: '2026-11-20T00:00:00.000Z', updated_at: '2026-11-26T09:30:00.000Z',
    } as WebhookEndpointView;
    const lastHour = minuteSeries([{ attempted_at: new Date('2026-11-26T10:12:20Z'), outcome: 'failed', duration_ms: 120 }], NOW, false);
    const section = endpointHealthSection(endpoint, { as_of: NOW.toISOString(), last_hour: lastHour, last_24_hours: healthSeries(ROWS, NOW, 24), last_7_days: healthSeries(ROWS, NOW, 168) }).value;
    expect(section).toContain('<span class="status bad">Disabled</span> since <time datetime="2026-11-26T09:30:00.000Z">');
    expect(section).toContain('(last: HTTP 500) · 20 failed attempts in a row so far.');
    expect(section.match(/<details class="health-details"><summary>/g)).toHaveLength(3);
    expect(section).toContain('<td data-label="Minute"><time datetime="2026-11-26T10:12:00.000Z">2026-11-26 10:12 UTC</time></td>');
    // The 24 hours come first (the top of a phone's screen), then the last hour, then the week.
    expect(section.indexOf('id="health-24h"')).toBeLessThan(section.indexOf('id="health-1h"'));
    expect(section.indexOf('id="health-1h"')).toBeLessThan(section.indexOf('id="health-7d"'));
    expect(section).toContain('<td data-label="Hour"><time datetime="2026-11-26T10:00:00.000Z">2026-11-26 10:00 UTC</time></td>\n<td data-label="Succeeded">1,532</td>');
  });

  it('writes the overview success rate in words, never rounding a failure up to 100 %', () => {
    expect(successRateText({ attempts: 1532, succeeded: 1512, failed: 20, success_rate: 1512 / 1532 })).toBe('98.6 % of 1,532 attempts');
    expect(percentText(9999 / 10000)).toBe('99.9 %');
    expect(successRateText({ attempts: 1, succeeded: 1, failed: 0, success_rate: 1 })).toBe('100.0 % of 1 attempt');
    expect(successRateText(undefined)).toBe('no attempts');
    expect(successRateHtml(undefined).value).toContain('class="success-rate muted"');
  });

  it('draws the last hour per minute, labelled every 10 minutes, and shades minutes the attempt log no longer holds', () => {
    const attempts = [
      { attempted_at: new Date('2026-11-26T10:16:10Z'), outcome: 'succeeded', duration_ms: 30 },
      { attempted_at: new Date('2026-11-26T10:05:10Z'), outcome: 'retry', duration_ms: 10_000 },
    ];
    const svg = healthChartSvg(minuteSeries(attempts, NOW, true), { id: 'h1', title: 'Last hour' }).value;
    expect(svg).toContain('data-minutes="60"');
    expect(svg).toContain('<g class="minute" data-minute="2026-11-26T10:16:00.000Z" data-succeeded="1" data-failed="0" data-p50="30" data-p99="30">');
    expect(svg).toContain('<g class="minute" data-minute="2026-11-26T10:05:00.000Z" data-succeeded="0" data-failed="1" data-p50="10000" data-p99="10000">');
    expect([...svg.matchAll(/<text x="[\d.]+" y="\d+" text-anchor="middle">(\d\d:\d\d)<\/text>/g)].map((m) => m[1])).toEqual(['09:20', '09:30', '09:40', '09:50', '10:00', '10:10']);
    // The log was full and begins at 10:05:10: the 47 minutes before (09:18–10:04) are shaded "not kept".
    expect(svg).toContain('<g class="not-kept" data-minutes="47">');
    expect(svg).toContain('attempts before 2026-11-26 10:05 UTC are not counted');
    // Exact figures from the attempt log, not bucket bounds: no "≤".
    expect(svg).toContain('Latency p50 30 ms, p99 10 s.');
    expect(svg).toContain('<title>2026-11-26 10:16 UTC: 1 succeeded, 0 failed; p50 30 ms, p99 30 ms</title>');
  });
});
