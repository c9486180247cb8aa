// The tracked points of a shipment as a SQL fragment, shared by the statements of the shipments
// and reports families; its scope and parameters are in tracked-points.ts.

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
