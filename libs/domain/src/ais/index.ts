/** Front door of the ais family: vessel positions from the AIS feed. Services and types only; its repositories stay inside the folder. */
export * from './ais-position';
export * from './ais-ingest.service';
export * from './ais-topology';
export * from './vessel-positions';
