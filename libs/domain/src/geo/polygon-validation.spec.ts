import type { Position } from '@app/vocabulary';
import { POLYGON_MAX_POSITIONS, polygonCoordinatesProblem, segmentsIntersect } from './polygon-validation';

const square: Position[] = [[27, 38], [28, 38], [28, 39], [27, 39], [27, 38]];

describe('segmentsIntersect', () => {
  it.each([
    ['crossing', [0, 0], [2, 2], [0, 2], [2, 0], true],
    ['parallel', [0, 0], [2, 0], [0, 1], [2, 1], false],
    ['touching at an end', [0, 0], [1, 1], [1, 1], [2, 0], true],
    ['collinear, overlapping', [0, 0], [2, 0], [1, 0], [3, 0], true],
    ['collinear, apart', [0, 0], [1, 0], [2, 0], [3, 0], false],
    ['T junction', [0, 0], [2, 0], [1, 0], [1, 1], true],
    ['near miss', [0, 0], [1, 1], [1.01, 1], [2, 0], false],
  ] as Array<[string, Position, Position, Position, Position, boolean]>)('%s → %s', (_name, a, b, c, d, expected) => {
    expect(segmentsIntersect(a, b, c, d)).toBe(expected);
    expect(segmentsIntersect(c, d, a, b)).toBe(expected);
  });
});

describe('polygonCoordinatesProblem', () => {
  it.each([
    ['a square', [square]],
    ['a triangle (4 positions)', [[[0, 0], [1, 0], [0, 1], [0, 0]]]],
    ['a concave ring', [[[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2], [0, 0]]]],
    ['the extreme coordinates', [[[-180, -90], [180, -90], [180, 90], [-180, -90]]]],
  ])('accepts %s', (_name, coordinates) => {
    expect(polygonCoordinatesProblem(coordinates)).toBeNull();
  });

  const bowtie = [[0, 0], [2, 2], [2, 0], [0, 2], [0, 0]];
  const touching = [[0, 0], [4, 0], [4, 4], [2, 0], [0, 4], [0, 0]];
  const spike = [[0, 0], [2, 0], [1, 0], [1, 1], [0, 0]];
  it.each([
    ['not an array', 'nope', 'polygon_rings'],
    ['no ring', [], 'polygon_rings'],
    ['a hole', [square, square], 'polygon_rings'],
    ['three positions', [[[0, 0], [1, 0], [0, 0]]], 'ring_size'],
    ['too many positions', [Array.from({ length: POLYGON_MAX_POSITIONS + 1 }, () => [0, 0])], 'ring_size'],
    ['a position with three numbers', [[[0, 0, 5], [1, 0], [0, 1], [0, 0]]], 'position_invalid'],
    ['a string position', [[[0, 0], ['1', 0], [0, 1], [0, 0]]], 'position_invalid'],
    ['longitude over 180', [[[0, 0], [181, 0], [0, 1], [0, 0]]], 'position_out_of_range'],
    ['latitude under -90', [[[0, 0], [1, -91], [0, 1], [0, 0]]], 'position_out_of_range'],
    ['an open ring', [[[0, 0], [1, 0], [1, 1], [0, 1]]], 'ring_not_closed'],
    ['a repeated position', [[[0, 0], [1, 0], [1, 0], [0, 1], [0, 0]]], 'ring_degenerate'],
    ['collinear positions', [[[0, 0], [1, 0], [2, 0], [0, 0]]], 'ring_degenerate'],
    ['a bow tie', [bowtie], 'ring_self_intersection'],
    ['a ring touching itself', [touching], 'ring_self_intersection'],
    ['a spike doubling back', [spike], 'ring_self_intersection'],
  ])('refuses %s with %s', (_name, coordinates, code) => {
    expect(polygonCoordinatesProblem(coordinates)).toEqual({ code, message: expect.any(String) });
  });
});
