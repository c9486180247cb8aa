/** Leg modes: `multimodal` describes carriers, not legs. */
export const SHIPMENT_LEG_MODES = ['road', 'sea', 'air', 'rail'] as const;
export type ShipmentLegMode = (typeof SHIPMENT_LEG_MODES)[number];

/** One transport leg as stored in `shipments.transport_legs` (jsonb, travel order). */
export interface StoredShipmentLeg {
  mode: ShipmentLegMode;
  carrier_id: string | null;
  vessel_mmsi: string | null;
  vessel_imo: string | null;
  from_location_id: string | null;
  to_location_id: string | null;
  planned_departure_at: string | null;
  planned_arrival_at: string | null;
}

/** A leg as presented: its position in the route and whether it is behind the shipment. */
export interface ShipmentLegRecord extends StoredShipmentLeg {
  index: number;
  completed: boolean;
}

/** Normalises stored jsonb (keys may be missing in hand-written rows). */
export function toStoredLegs(stored: unknown): StoredShipmentLeg[] {
  if (!Array.isArray(stored)) return [];
  return stored.map((raw) => {
    const leg = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
    const text = (key: string): string | null => (typeof leg[key] === 'string' ? (leg[key] as string) : null);
    return {
      mode: (SHIPMENT_LEG_MODES as readonly string[]).includes(String(leg.mode)) ? (leg.mode as ShipmentLegMode) : 'road',
      carrier_id: text('carrier_id'),
      vessel_mmsi: text('vessel_mmsi'),
      vessel_imo: text('vessel_imo'),
      from_location_id: text('from_location_id'),
      to_location_id: text('to_location_id'),
      planned_departure_at: text('planned_departure_at'),
      planned_arrival_at: text('planned_arrival_at'),
    };
  });
}

export interface LegProgress {
  now: Date;
  /** Locations a device of the shipment has entered (recorded geofence entries and the arrival). */
  reached: ReadonlySet<string>;
  /** A completed shipment has every leg behind it. */
  completed: boolean;
}

/**
 * A leg is behind the shipment once its planned arrival has passed or a device of the shipment
 * has entered its destination; a completed shipment has all legs behind it.
 */
export function presentLegs(legs: readonly StoredShipmentLeg[], progress: LegProgress): ShipmentLegRecord[] {
  return legs.map((leg, index) => {
    const byTime = leg.planned_arrival_at !== null && new Date(leg.planned_arrival_at).getTime() <= progress.now.getTime();
    const byArrival = leg.to_location_id !== null && progress.reached.has(leg.to_location_id);
    return { ...leg, index, completed: progress.completed || byTime || byArrival };
  });
}

/** The first leg not yet completed, or null (no legs, all behind, or shipment completed). */
export function activeLeg(legs: readonly ShipmentLegRecord[]): ShipmentLegRecord | null {
  return legs.find((leg) => !leg.completed) ?? null;
}
