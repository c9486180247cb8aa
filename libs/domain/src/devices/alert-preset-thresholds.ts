import type { EntityManager } from 'typeorm';
import { toThresholds, type Thresholds } from './device-settings';
import type { AccountId } from '@app/vocabulary';

/**
 * Alert presets are catalogue records; a preset is read as jsonb so that only (id, account_id) and
 * threshold columns named like the device thresholds matter here.
 */
export async function alertPresetExists(manager: EntityManager, accountId: AccountId, presetId: string): Promise<boolean> {
  const rows = (await manager.query(`SELECT 1 FROM alert_presets WHERE account_id = $1 AND id = $2`, [accountId, presetId])) as unknown[];
  return rows.length > 0;
}

export function presetThresholds(preset: Record<string, unknown>): Thresholds {
  const nested = preset.thresholds;
  return toThresholds(nested && typeof nested === 'object' ? { ...preset, ...nested } : preset);
}

/** Thresholds of the given presets, keyed by preset id; each preset only within its own account. */
export async function loadPresetThresholds(
  manager: EntityManager,
  presets: Array<{ accountId: AccountId; presetId: string }>,
): Promise<Map<string, Thresholds>> {
  const result = new Map<string, Thresholds>();
  if (presets.length === 0) return result;
  const rows = (await manager.query(
    `SELECT p.id, to_jsonb(p) AS preset
       FROM alert_presets p
       JOIN unnest($1::uuid[], $2::uuid[]) AS wanted(account_id, id) ON wanted.id = p.id AND wanted.account_id = p.account_id`,
    [presets.map((p) => p.accountId), presets.map((p) => p.presetId)],
  )) as Array<{ id: string; preset: Record<string, unknown> }>;
  for (const row of rows) result.set(row.id, presetThresholds(row.preset));
  return result;
}
