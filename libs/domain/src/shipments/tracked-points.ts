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

/** The parameters of TRACKED_POINTS (tracked-points.queries.ts, $1..$6): the account first. */
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
