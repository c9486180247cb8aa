/** Front door of the alert-presets family: alert presets (a catalogue family). Services and types only; its repositories stay inside the folder. */
export * from './alert-presets.rules';
export * from './alert-presets.service';
