import { ClaimCursor } from './claim-cursor';

const A = '018f0000-0000-7000-8000-00000000000a';
const B = '018f0000-0000-7000-8000-00000000000b';
const C = '018f0000-0000-7000-8000-00000000000c';

describe('ClaimCursor', () => {
  it('starts from the first endpoint and goes round once: a round from the start ends at the end of the ring', () => {
    const cursor = new ClaimCursor();
    cursor.beginRound();
    expect(cursor.position).toBeNull();
    expect(cursor.advance(A)).toBe(false);
    expect(cursor.position).toBe(A);
    expect(cursor.advance(B)).toBe(false);
    expect(cursor.advance(null)).toBe(true);
    expect(cursor.position).toBeNull();
  });

  it('a round that starts mid-ring wraps to the first endpoint and ends once it passes where it started', () => {
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
