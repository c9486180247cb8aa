import type { Db } from '@app/database/sql';
import { advanceLifecycleStatus, ingestLifecycleRows, type IngestLifecycleRow, type LifecycleStatusColumns } from './devices.repository';

export type { IngestLifecycleRow, LifecycleStatusColumns };

/** The lifecycles of these devices that ingestion files points under (locked FOR UPDATE unless `lock` is false). */
export function lifecyclesForIngest(db: Db, deviceIds: readonly string[], lock = true): Promise<IngestLifecycleRow[]> {
  return ingestLifecycleRows(db, deviceIds, lock);
}

/** Moves the lifecycles' last-seen status (time, battery, position) forward with an ingested batch. */
export function advanceLifecycles(db: Db, columns: LifecycleStatusColumns): Promise<void> {
  return advanceLifecycleStatus(db, columns);
}
