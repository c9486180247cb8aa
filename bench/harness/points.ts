/** A gateway point as it travels on the queue (snake_case JSON, DESIGN §6). */
export interface GatewayPoint {
  device_id: string;
  recorded_at: string;
  temperature: number;
  humidity: number;
  light: number;
  shock: number;
  battery: number;
  latitude: number;
  longitude: number;
}

export interface PointPlan {
  deviceIds: string[];
  /** First minute of the window (UTC, whole minute). */
  fromMs: number;
  /** Points per device, one a minute. */
  perDevice: number;
}

/** The points of one ingest round, minute by minute across the devices (as gateways send them). */
export function* planPoints(plan: PointPlan): Generator<GatewayPoint> {
  for (let minute = 0; minute < plan.perDevice; minute++) {
    const at = new Date(plan.fromMs + minute * 60_000).toISOString();
    for (let d = 0; d < plan.deviceIds.length; d++) {
      const phase = minute + d * 13;
      yield {
        device_id: plan.deviceIds[d],
        recorded_at: at,
        temperature: Math.round((5 + 1.5 * Math.sin(phase / 50)) * 100) / 100,
        humidity: Math.round((60 + 8 * Math.cos(phase / 70)) * 10) / 10,
        light: minute % 240 === 0 ? 80 : 0,
        shock: Math.round((0.05 + 0.03 * Math.sin(phase / 5)) * 1000) / 1000,
        battery: Math.round((95 - minute * 0.002) * 10) / 10,
        latitude: Math.round((48 + d * 0.01 + minute * 0.00001) * 1e6) / 1e6,
        longitude: Math.round((11 + minute * 0.00002) * 1e6) / 1e6,
      };
    }
  }
}
