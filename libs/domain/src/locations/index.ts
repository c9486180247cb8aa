/** Front door of the locations family: locations (a catalogue family). Services and types only; its repositories stay inside the folder. */
export * from './locations.rules';
export * from './locations.service';
