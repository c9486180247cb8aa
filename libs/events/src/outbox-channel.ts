/** The PostgreSQL NOTIFY channel that wakes the outbox relay when an event is committed. */
export const OUTBOX_NOTIFY_CHANNEL = 'outbox_events';
