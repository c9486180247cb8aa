import type { AccountId } from '@app/vocabulary';
/**
 * The telemetry of a shipment: the points of each attached device recorded while it was
 * attached (in the ownership it travelled in), inside [started_at, completed_at or now).
 * Completion sets every open attachment's detached_at to the completion moment, so a point
 * stamped after it — even ingested later — can never fall inside the window.
 */
export interface TrackedPointsScope {
  accountId: AccountId;
  shipmentId: number;
  /** Only this device's attachments. */
  deviceId?: string | null;
  /** Optional narrowing of the window: [from, to). */
  from?: Date | null;
  to?: Date | null;
  /** End of open attachments (active shipment). */
  now: Date;
}

export const TRACKED_POINT_COLUMNS = 't.device_id, t.recorded_at, t.temperature, t.humidity, t.light, t.shock, t.battery, t.latitude, t.longitude';

/**
 * The tracked points (columns TRACKED_POINT_COLUMNS, unordered) as a constant fragment for the
 * statements of `*.queries.ts` files (shipments, reports): its parameters are $1..$6,
 * `trackedPointsParams(scope)`.
 */
export const TRACKED_POINTS = `
    SELECT ${TRACKED_POINT_COLUMNS}
      FROM shipment_devices sd
      JOIN telemetry_points t
        ON t.device_id = sd.device_id AND t.lifecycle_id = sd.lifecycle_id
       AND t.recorded_at >= GREATEST(sd.attached_at, COALESCE($4::timestamptz, sd.attached_at))
       AND t.recorded_at < LEAST(COALESCE(sd.detached_at, $3::timestamptz), COALESCE($5::timestamptz, 'infinity'::timestamptz))
     WHERE sd.account_id = $1 AND sd.shipment_id = $2
       AND ($6::uuid IS NULL OR sd.device_id = $6::uuid)`;

/** The parameters of TRACKED_POINTS ($1..$6): the account first. */
export function trackedPointsParams(scope: TrackedPointsScope): [AccountId, number, string, string | null, string | null, string | null] {
  return [
    scope.accountId,
    scope.shipmentId,
    scope.now.toISOString(),
    scope.from ? scope.from.toISOString() : null,
    scope.to ? scope.to.toISOString() : null,
    scope.deviceId ?? null,
  ];
}
