import { haversineDistanceM, pointInGeofence, type CircleGeofence, type PolygonGeofence, type Position } from './geofence';

const polygon = (ring: Position[]): PolygonGeofence => ({ type: 'polygon', polygon: { type: 'Polygon', coordinates: [ring] } });

describe('haversineDistanceM', () => {
  it('measures one degree of latitude as about 111.2 km', () => {
    expect(haversineDistanceM(0, 0, 1, 0)).toBeCloseTo(111_195, -1);
  });

  it('measures Istanbul to Ankara as about 350 km', () => {
    expect(haversineDistanceM(41.0082, 28.9784, 39.9334, 32.8597) / 1000).toBeCloseTo(350, -1);
  });

  it('is zero for the same point', () => {
    expect(haversineDistanceM(38.42, 27.14, 38.42, 27.14)).toBe(0);
  });
});

describe('pointInGeofence: circle', () => {
  const port: CircleGeofence = { type: 'circle', center: { latitude: 38.44, longitude: 27.14 }, radius_m: 1000 };
  // 0.001° of latitude is about 111 m.
  it.each([
    ['the centre', 38.44, 27.14, true],
    ['about 890 m north', 38.448, 27.14, true],
    ['about 1.1 km north', 38.45, 27.14, false],
    ['about 870 m east (longitude shrinks with latitude)', 38.44, 27.15, true],
    ['about 1.3 km east', 38.44, 27.155, false],
  ])('%s → %s', (_name, latitude, longitude, inside) => {
    expect(pointInGeofence(port, latitude, longitude)).toBe(inside);
  });
});

describe('pointInGeofence: polygon (ray casting)', () => {
  const square = polygon([[27, 38], [28, 38], [28, 39], [27, 39], [27, 38]]);
  // An L shape: the notch at the top right is outside.
  const ell = polygon([[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2], [0, 0]]);

  it.each([
    [square, 38.5, 27.5, true],
    [square, 39.5, 27.5, false],
    [square, 38.5, 26.9, false],
    [square, 37.9, 27.5, false],
    [ell, 0.5, 0.5, true],
    [ell, 0.5, 1.5, true],
    [ell, 1.5, 0.5, true],
    [ell, 1.5, 1.5, false],
    [ell, 3, 3, false],
  ])('case %# (lat %d, lon %d) → %s', (geofence, latitude, longitude, inside) => {
    expect(pointInGeofence(geofence, latitude, longitude)).toBe(inside);
  });

  it('does not depend on the ring orientation', () => {
    const clockwise = polygon([[27, 38], [27, 39], [28, 39], [28, 38], [27, 38]]);
    expect(pointInGeofence(clockwise, 38.5, 27.5)).toBe(true);
    expect(pointInGeofence(clockwise, 40, 27.5)).toBe(false);
  });
});
