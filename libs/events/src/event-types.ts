/** Event types of spec §6.2. New types may be added; receivers ignore unknown ones. */
export const EVENT_TYPES = ['alarm.created', 'alarm.resolved', 'shipment.created', 'shipment.completed'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}
