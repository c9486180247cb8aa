/** Devices one shipment carries at most; more is refused as `too_many_devices`. */
export const MAX_SHIPMENT_DEVICES = 5;

/** Bounds of a share link: its lifetime in hours and its view limit. */
export const SHARE_LIMITS = {
  minHours: 1,
  maxHours: 90 * 24,
  minViews: 1,
  maxViews: 10_000,
} as const;
