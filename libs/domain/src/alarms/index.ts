/** Front door of the alarms family: alarms raised by ingestion, listed and acknowledged through the API. Services and types only; its repositories stay inside the folder. */
export * from './alarm-enums';
export * from './alarm-record';
export * from './alarm-writer';
export * from './alarms.service';
