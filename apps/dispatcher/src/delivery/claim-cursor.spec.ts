import { ClaimCursor, compareRingPositions } from './claim-cursor';

const at = (ring: number, last: string) => ({ ring, endpointId: `018f0000-0000-7000-8000-00000000000${last}` });
const A = at(-5, 'c');
const B = at(7, 'a');
const C = at(7, 'b');

describe('ClaimCursor', () => {
  it('starts at the start of the ring and goes round once: a round from the start ends at the end of the ring', () => {
    const cursor = new ClaimCursor();
    cursor.beginRound();
    expect(cursor.position).toBeNull();
    expect(cursor.advance(A)).toBe(false);
    expect(cursor.position).toBe(A);
    expect(cursor.advance(B)).toBe(false);
    expect(cursor.advance(null)).toBe(true);
    expect(cursor.position).toBeNull();
  });

  it('a round that starts mid-ring wraps to the start and ends once it passes where it started', () => {
    const cursor = new ClaimCursor();
    cursor.beginRound();
    cursor.advance(B);
    cursor.beginRound();
    expect(cursor.advance(C)).toBe(false);
    expect(cursor.advance(null)).toBe(false);
    expect(cursor.position).toBeNull();
    expect(cursor.advance(A)).toBe(false);
    expect(cursor.advance(B)).toBe(true);
  });

  it('a round that starts mid-ring ends at the second end of the ring when the endpoints after its start have no more work', () => {
    const cursor = new ClaimCursor();
    cursor.beginRound();
    cursor.advance(C);
    cursor.beginRound();
    expect(cursor.advance(null)).toBe(false);
    expect(cursor.advance(null)).toBe(true);
  });

  it('keeps its position across rounds: the next pump continues where the last one stopped', () => {
    const cursor = new ClaimCursor();
    cursor.beginRound();
    cursor.advance(A);
    cursor.beginRound();
    expect(cursor.position).toBe(A);
  });
});

describe('compareRingPositions', () => {
  it('orders by the signed ring hash first, then by endpoint id', () => {
    expect(compareRingPositions(A, B)).toBeLessThan(0);
    expect(compareRingPositions(B, C)).toBeLessThan(0);
    expect(compareRingPositions(C, B)).toBeGreaterThan(0);
    expect(compareRingPositions(at(-2147483648, 'f'), at(2147483647, '0'))).toBeLessThan(0);
    expect(compareRingPositions(B, { ...B })).toBe(0);
  });
});
