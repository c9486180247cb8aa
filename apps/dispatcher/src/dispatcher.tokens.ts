export const DISPATCHER_OPTIONS = Symbol('DISPATCHER_OPTIONS');

/** What only tests (or an embedding program) set; production configures through the environment. */
export interface DispatcherOptions {
  /** An extra CA trusted for receivers, next to Node's roots (NODE_EXTRA_CA_CERTS in production). */
  ca?: string | Buffer;
}
