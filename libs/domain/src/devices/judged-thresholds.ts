import type { EntityManager } from 'typeorm';
import { loadPresetThresholds } from './alert-preset-thresholds';
import { effectiveThresholds, toThresholds, type Thresholds } from './device-settings';
import type { AccountId } from '@app/vocabulary';

/** The limits a report (and the shared shipment page) judges against: a subset of the device thresholds. */
export const OUTSIDE_LIMITS = ['temperature_min', 'temperature_max', 'humidity_min', 'humidity_max'] as const;
export type OutsideLimit = (typeof OUTSIDE_LIMITS)[number];

/**
 * The thresholds a report judges a device by: the device's own, completed by the shipment's
 * alert preset when the shipment names one (otherwise by the device's own preset) — the same
 * precedence ingestion applies to device settings.
 */
export async function reportThresholds(
  manager: EntityManager,
  accountId: AccountId,
  devices: Array<{ thresholds: unknown; alertPresetId: string | null }>,
  shipmentPresetId: string | null,
): Promise<Thresholds[]> {
  const wanted = [...new Set([shipmentPresetId, ...devices.map((d) => d.alertPresetId)].filter((id): id is string => id !== null))];
  const presets = await loadPresetThresholds(manager, wanted.map((presetId) => ({ accountId, presetId })));
  return devices.map((device) => {
    const presetId = shipmentPresetId ?? device.alertPresetId;
    return effectiveThresholds(toThresholds(device.thresholds), presetId ? (presets.get(presetId) ?? null) : null);
  });
}

/** The limits printed on the report and drawn on its chart: those of the first device. */
export function displayedLimits(thresholds: readonly Thresholds[]): Record<OutsideLimit, number | null> {
  const first = thresholds[0];
  return Object.fromEntries(OUTSIDE_LIMITS.map((limit) => [limit, first ? first[limit] : null])) as Record<OutsideLimit, number | null>;
}
