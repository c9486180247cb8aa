/** Front door of the receivers family: receivers (a catalogue family). Services and types only; its repositories stay inside the folder. */
export * from './receivers.rules';
export * from './receivers.service';
