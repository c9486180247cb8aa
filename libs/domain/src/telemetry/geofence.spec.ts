import { detectGeofenceTransitions, distanceMeters, shapeContains, type TrackedGeofence, type GeofenceShape } from './geofence';

const fence = (id: string, shape: GeofenceShape): TrackedGeofence => ({ id, name: id, shape, alarmOnEntry: true, alarmOnExit: true });

describe('geofence geometry', () => {
  it('measures great-circle distances', () => {
    // one degree of latitude is about 111.2 km
    expect(distanceMeters({ latitude: 0, longitude: 0 }, { latitude: 1, longitude: 0 })).toBeCloseTo(111_195, -1);
    expect(distanceMeters({ latitude: 41, longitude: 29 }, { latitude: 41, longitude: 29 })).toBe(0);
  });

  it('contains positions inside a circle, boundary included', () => {
    const circle = { center: { latitude: 41, longitude: 29 }, radius_m: 1000 };
    expect(shapeContains(circle, { latitude: 41.005, longitude: 29 })).toBe(true); // ~556 m
    expect(shapeContains(circle, { latitude: 41.01, longitude: 29 })).toBe(false); // ~1112 m
    expect(shapeContains({ ...circle, radius_m: distanceMeters(circle.center, { latitude: 41.005, longitude: 29 }) }, { latitude: 41.005, longitude: 29 })).toBe(true);
  });

  it('reads GeoJSON polygons as [longitude, latitude], with holes', () => {
    const square: GeofenceShape = {
      type: 'Polygon',
      coordinates: [
        [[28, 40], [30, 40], [30, 42], [28, 42], [28, 40]],
        [[28.9, 40.9], [29.1, 40.9], [29.1, 41.1], [28.9, 41.1], [28.9, 40.9]],
      ],
    };
    expect(shapeContains(square, { latitude: 40.5, longitude: 29.5 })).toBe(true);
    expect(shapeContains(square, { latitude: 41, longitude: 29 })).toBe(false); // in the hole
    expect(shapeContains(square, { latitude: 29.5, longitude: 40.5 })).toBe(false); // swapped axes
    const multi: GeofenceShape = { type: 'MultiPolygon', coordinates: [[[[0, 0], [1, 0], [1, 1], [0, 0]]], [[[10, 10], [11, 10], [11, 11], [10, 10]]]] };
    expect(shapeContains(multi, { latitude: 10.2, longitude: 10.8 })).toBe(true);
    expect(shapeContains(multi, { latitude: 5, longitude: 5 })).toBe(false);
  });
});

describe('detectGeofenceTransitions', () => {
  const warehouse = fence('warehouse', { center: { latitude: 41, longitude: 29 }, radius_m: 500 });
  const port = fence('port', { type: 'Polygon', coordinates: [[[28, 40], [28.1, 40], [28.1, 40.1], [28, 40.1], [28, 40]]] });
  const outside = { latitude: 40.5, longitude: 28.5 };
  const inWarehouse = { latitude: 41.001, longitude: 29.001 };
  const inPort = { latitude: 40.05, longitude: 28.05 };

  it('reports entries and exits', () => {
    expect(detectGeofenceTransitions(outside, inWarehouse, [warehouse, port])).toEqual({ entered: [warehouse], exited: [] });
    expect(detectGeofenceTransitions(inPort, outside, [warehouse, port])).toEqual({ entered: [], exited: [port] });
    expect(detectGeofenceTransitions(inPort, inWarehouse, [warehouse, port])).toEqual({ entered: [warehouse], exited: [port] });
  });

  it('reports nothing while staying inside or outside, without geofences, or without a previous position', () => {
    expect(detectGeofenceTransitions(inWarehouse, { latitude: 41.0012, longitude: 29.0 }, [warehouse])).toEqual({ entered: [], exited: [] });
    expect(detectGeofenceTransitions(outside, { latitude: 40.6, longitude: 28.6 }, [warehouse, port])).toEqual({ entered: [], exited: [] });
    expect(detectGeofenceTransitions(outside, inWarehouse, [])).toEqual({ entered: [], exited: [] });
    expect(detectGeofenceTransitions(null, inWarehouse, [warehouse])).toEqual({ entered: [], exited: [] });
  });
});
