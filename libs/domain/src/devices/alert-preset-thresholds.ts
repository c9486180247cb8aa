import type { Db } from '@app/database/sql';
import { toThresholds, type Thresholds } from './device-settings';
import { alertPresetRowExists, presetRowsOfAccounts } from './devices.repository';
import type { AccountId } from '@app/vocabulary';

/**
 * Alert presets are catalogue records; a preset is read as jsonb so that only (id, account_id) and
 * threshold columns named like the device thresholds matter here.
 */
export function alertPresetExists(manager: Db, accountId: AccountId, presetId: string): Promise<boolean> {
  return alertPresetRowExists(manager, accountId, presetId);
}

export function presetThresholds(preset: Record<string, unknown>): Thresholds {
  const nested = preset.thresholds;
  return toThresholds(nested && typeof nested === 'object' ? { ...preset, ...nested } : preset);
}

/** Thresholds of the given presets, keyed by preset id; each preset only within its own account. */
export async function loadPresetThresholds(manager: Db, presets: Array<{ accountId: AccountId; presetId: string }>): Promise<Map<string, Thresholds>> {
  const result = new Map<string, Thresholds>();
  if (presets.length === 0) return result;
  const rows = await presetRowsOfAccounts(manager, presets);
  for (const row of rows) result.set(row.id, presetThresholds(row.preset));
  return result;
}
