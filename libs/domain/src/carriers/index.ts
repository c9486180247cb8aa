/** Front door of the carriers family: carriers (a catalogue family). Services and types only; its repositories stay inside the folder. */
export * from './carriers.rules';
export * from './carriers.service';
