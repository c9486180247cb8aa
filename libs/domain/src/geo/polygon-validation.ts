import type { Position } from '@app/vocabulary';

export const POLYGON_MAX_POSITIONS = 1000;

export interface GeometryProblem {
  /** Stable code, used as the field error code (`errors[].code`). */
  code: PolygonProblemCode;
  message: string;
}

export const POLYGON_PROBLEM_CODES = [
  'polygon_rings',
  'ring_size',
  'position_invalid',
  'position_out_of_range',
  'ring_not_closed',
  'ring_degenerate',
  'ring_self_intersection',
] as const;
export type PolygonProblemCode = (typeof POLYGON_PROBLEM_CODES)[number];

const problem = (code: PolygonProblemCode, message: string): GeometryProblem => ({ code, message });

/** Sign of the cross product (b - a) × (c - a): >0 left turn, <0 right turn, 0 collinear. */
function orientation(a: Position, b: Position, c: Position): number {
  const value = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
  return value === 0 ? 0 : value > 0 ? 1 : -1;
}

/** c lies within the bounding box of a–b (meaningful when a, b, c are collinear). */
function onSegment(a: Position, b: Position, c: Position): boolean {
  return Math.min(a[0], b[0]) <= c[0] && c[0] <= Math.max(a[0], b[0]) && Math.min(a[1], b[1]) <= c[1] && c[1] <= Math.max(a[1], b[1]);
}

/** Closed segments a–b and c–d share at least one point (touching and collinear overlap included). */
export function segmentsIntersect(a: Position, b: Position, c: Position, d: Position): boolean {
  const o1 = orientation(a, b, c);
  const o2 = orientation(a, b, d);
  const o3 = orientation(c, d, a);
  const o4 = orientation(c, d, b);
  if (o1 !== o2 && o3 !== o4) return true;
  return (
    (o1 === 0 && onSegment(a, b, c)) ||
    (o2 === 0 && onSegment(a, b, d)) ||
    (o3 === 0 && onSegment(c, d, a)) ||
    (o4 === 0 && onSegment(c, d, b))
  );
}

/**
 * Edges a–b and b–c meet at b only, unless c doubles back along a–b (a spike): collinear with the
 * turn pointing backwards.
 */
function adjacentEdgesOverlap(a: Position, b: Position, c: Position): boolean {
  if (orientation(a, b, c) !== 0) return false;
  return (b[0] - a[0]) * (c[0] - b[0]) + (b[1] - a[1]) * (c[1] - b[1]) < 0;
}

const isPosition = (value: unknown): value is Position =>
  Array.isArray(value) && value.length === 2 && value.every((n) => typeof n === 'number' && Number.isFinite(n));

const samePosition = (a: Position, b: Position): boolean => a[0] === b[0] && a[1] === b[1];

const allCollinear = (ring: readonly Position[]): boolean => ring.every((p) => orientation(ring[0], ring[1], p) === 0);

function selfIntersection(ring: readonly Position[]): string | null {
  const edges = ring.length - 1;
  for (let i = 0; i < edges; i++) {
    for (let j = i + 1; j < edges; j++) {
      const adjacent = j === i + 1 || (i === 0 && j === edges - 1);
      if (adjacent) {
        const overlap = j === i + 1
          ? adjacentEdgesOverlap(ring[i], ring[i + 1], ring[j + 1])
          : adjacentEdgesOverlap(ring[j], ring[0], ring[1]);
        if (overlap) return `edges ${i} and ${j} overlap`;
      } else if (segmentsIntersect(ring[i], ring[i + 1], ring[j], ring[j + 1])) {
        return `edges ${i} and ${j} cross or touch`;
      }
    }
  }
  return null;
}

/**
 * Checks the `coordinates` of a GeoJSON Polygon as the API accepts it: exactly one linear ring of
 * 4..POLYGON_MAX_POSITIONS [longitude, latitude] positions, in range, closed, not all on one line,
 * and without self-intersection. Returns the first problem found, or null.
 */
export function polygonCoordinatesProblem(coordinates: unknown): GeometryProblem | null {
  if (!Array.isArray(coordinates) || coordinates.length !== 1) {
    return problem('polygon_rings', 'coordinates must hold exactly one linear ring (the outer boundary; holes are not supported)');
  }
  const ring: unknown = coordinates[0];
  if (!Array.isArray(ring) || ring.length < 4 || ring.length > POLYGON_MAX_POSITIONS) {
    return problem('ring_size', `the ring must have 4 to ${POLYGON_MAX_POSITIONS} positions (first and last equal)`);
  }
  for (const [index, position] of ring.entries()) {
    if (!isPosition(position)) return problem('position_invalid', `position ${index} must be [longitude, latitude] (two numbers)`);
    const [longitude, latitude] = position;
    if (longitude < -180 || longitude > 180 || latitude < -90 || latitude > 90) {
      return problem('position_out_of_range', `position ${index}: longitude must be within -180..180 and latitude within -90..90`);
    }
  }
  const positions = ring as Position[];
  if (!samePosition(positions[0], positions[positions.length - 1])) {
    return problem('ring_not_closed', 'the ring must be closed: its last position must equal its first');
  }
  for (let i = 0; i < positions.length - 1; i++) {
    if (samePosition(positions[i], positions[i + 1])) return problem('ring_degenerate', `positions ${i} and ${i + 1} are the same point`);
  }
  if (allCollinear(positions)) return problem('ring_degenerate', 'the ring encloses no area (its positions are collinear)');
  const crossing = selfIntersection(positions);
  if (crossing) return problem('ring_self_intersection', `the ring intersects itself (${crossing})`);
  return null;
}
