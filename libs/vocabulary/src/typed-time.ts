/**
 * A date and time as a person types it into the panel or the CLI: "2026-11-26 08:00",
 * "2026-11-26T08:00:15.250", "… UTC" (how the panel writes times), or ISO 8601 with a zone
 * ("…Z", "…+01:00"). A time without a zone is UTC. Seconds and fractions are optional (fractions
 * are kept to the millisecond). Every field must exist on the calendar (2026-02-30 is not a day),
 * and nothing before 1970 is a time this service has.
 */
const TYPED_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z|[+-]\d{2}:\d{2})|\s+UTC)?)?$/i;

export interface TypedTimeOptions {
  /** A bare date ("2026-11-26") is its midnight UTC (filters); otherwise a time is required. */
  dateOnly?: boolean;
}

/** The instant `typed` names, or null when it names none. */
export function parseTypedTime(typed: string, options: TypedTimeOptions = {}): Date | null {
  const match = TYPED_TIME.exec(typed.trim());
  if (!match) return null;
  const [, year, month, day, hour, minute, second = '0', fraction = '', zone] = match;
  if (hour === undefined && !options.dateOnly) return null;
  const fields = [Number(year), Number(month) - 1, Number(day), Number(hour ?? 0), Number(minute ?? 0), Number(second)] as const;
  const calendar = new Date(Date.UTC(...fields, Number(fraction.padEnd(3, '0').slice(0, 3))));
  // Date.UTC rolls 30 February over into March: every field must survive the round trip.
  const back = [calendar.getUTCFullYear(), calendar.getUTCMonth(), calendar.getUTCDate(), calendar.getUTCHours(), calendar.getUTCMinutes(), calendar.getUTCSeconds()];
  if (back.some((value, i) => value !== fields[i]) || fields[0] < 1970) return null;
  const offset = zoneOffsetMinutes(zone);
  return offset === null ? null : new Date(calendar.getTime() - offset * 60_000);
}

/** "+01:30" → 90, "Z" or none → 0; an offset past ±23:59 → null. */
function zoneOffsetMinutes(zone: string | undefined): number | null {
  if (zone === undefined || zone.toUpperCase() === 'Z') return 0;
  const hours = Number(zone.slice(1, 3));
  const minutes = Number(zone.slice(4, 6));
  if (hours > 23 || minutes > 59) return null;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}
