import { BY_INTEGER, BY_TIME, BY_TIME_AND_UUID, BY_UUID } from './keyset';

const ID = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

describe('keysets', () => {
  it('round-trips each kind of position', () => {
    expect(BY_UUID.decode(BY_UUID.encode(ID))).toBe(ID);
    expect(BY_INTEGER.decode(BY_INTEGER.encode(42))).toBe(42);
    const at = new Date('2026-11-20T10:00:00.123Z');
    expect(BY_TIME.decode(BY_TIME.encode(at))).toEqual(at);
    const position = { at: '2026-11-20 10:00:00.123456+00', id: ID };
    expect(BY_TIME_AND_UUID.decode(BY_TIME_AND_UUID.encode(position))).toEqual(position);
  });

  it('refuses anything that is not exactly a position of its kind', () => {
    for (const raw of [[], [42], ['not-a-uuid'], [ID, ID], [null]]) expect(BY_UUID.decode(raw)).toBeNull();
    for (const raw of [[], ['42'], [0], [-1], [1.5], [Number.MAX_SAFE_INTEGER + 1], [1, 2]]) expect(BY_INTEGER.decode(raw)).toBeNull();
    for (const raw of [[], ['yesterday'], [0], ['2026-13-45T99:00:00Z'], ['2026-11-20T10:00:00Z', ID]]) expect(BY_TIME.decode(raw)).toBeNull();
    for (const raw of [['2026-11-20T10:00:00Z'], ['2026-11-20T10:00:00Z', 'x'], [ID, '2026-11-20T10:00:00Z'], [{}, ID]]) expect(BY_TIME_AND_UUID.decode(raw)).toBeNull();
  });
});
