import type { SharedShipmentView } from '@app/domain';
import { html, type Html } from '../common/html';
import type { View } from './invitation-page.views';
import { temperatureChart } from './temperature-chart';

export const TRACKING_PAGE_STYLE = `
  main { max-width: 48rem; }
  .status { display: inline-block; padding: .2rem .6rem; border-radius: 999px; font-weight: 600; background: #dbeafe; color: #1e3a8a; }
  .status.completed { background: #dcfce7; color: #14532d; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1rem; }
  dt { font-weight: 600; color: #374151; }
  dd { margin: 0; }
  .chart { width: 100%; height: auto; display: block; margin-top: .5rem; }
  footer { margin-top: 1.5rem; color: #4b5563; font-size: .85rem; }`;

const when = (value: Date | null): string => (value ? `${value.toISOString().slice(0, 16).replace('T', ' ')} UTC` : '—');
const LEG_NAMES: Record<string, string> = { road: 'Road', sea: 'Sea', air: 'Air', rail: 'Rail' };

function statusText(view: SharedShipmentView): string {
  if (view.status === 'completed') return 'Delivered';
  if (view.arrivedAt) return 'Arrived';
  return 'In transit';
}

function position(view: SharedShipmentView): Html {
  const p = view.lastPosition;
  if (!p) return html`No position reported yet.`;
  const source = p.source === 'vessel' ? 'vessel (AIS)' : 'tracker';
  return html`${p.latitude.toFixed(5)}, ${p.longitude.toFixed(5)} <span class="hint">(${source}, ${when(p.recordedAt)})</span>`;
}

/** The shared shipment: status, route, planning, last position and the temperature chart. */
export function trackingPageView(view: SharedShipmentView): View {
  const t = view.temperature;
  return {
    title: `Shipment ${view.name}`,
    body: html`<h1>${view.name}</h1>
<p><span class="status${view.status === 'completed' ? ' completed' : ''}" role="status">${statusText(view)}</span></p>
<dl>
<dt>From</dt><dd>${view.origin ?? '—'}</dd>
<dt>To</dt><dd>${view.destination ?? '—'}</dd>
<dt>Planned departure</dt><dd>${when(view.plannedDepartureAt)}</dd>
<dt>Planned arrival</dt><dd>${when(view.plannedArrivalAt)}</dd>
<dt>Started</dt><dd>${when(view.startedAt)}</dd>
${view.status === 'completed' ? html`<dt>Delivered</dt><dd>${when(view.completedAt)}</dd>` : html`<dt>Current leg</dt><dd>${view.activeLegMode ? LEG_NAMES[view.activeLegMode] : '—'}</dd>`}
<dt>Last position</dt><dd>${position(view)}</dd>
<dt>Temperature</dt><dd>${t ? `min ${t.min.toFixed(1)} °C · average ${t.avg.toFixed(1)} °C · max ${t.max.toFixed(1)} °C` : '—'}</dd>
</dl>
<h2>Temperature</h2>
${temperatureChart(view.chart)}
<footer>Shared by the shipper. This link works until ${when(view.expiresAt)}.</footer>`,
  };
}

/** Unknown, expired, used up or revoked: one answer for all, revealing nothing. */
export function linkUnavailableView(): View {
  return {
    title: 'Link not available',
    body: html`<h1>This link is not available</h1><p role="alert">The tracking link is not valid any more. Ask the sender for a new link.</p>`,
  };
}
