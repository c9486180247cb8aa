/** Front door of the errors family: the domain errors the apps map to responses. Services and types only; its repositories stay inside the folder. */
export * from './domain-error';
