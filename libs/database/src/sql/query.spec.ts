import { defineQueries } from './query';

describe('defineQueries: prepared statements', () => {
  it('marks the listed statements prepared and leaves the others unnamed', () => {
    const Q = defineQueries({
      owner: 'query-spec-prepared',
      tables: ['things'],
      tenant: { listThings: 'SELECT id FROM things WHERE account_id = $1' },
      platform: { claimThings: 'SELECT id FROM things LIMIT $1', countThings: 'SELECT count(*) FROM things' },
      prepared: ['claimThings'],
    });
    expect(Q.claimThings.prepared).toBe(true);
    expect(Q.countThings.prepared).toBe(false);
    expect(Q.listThings.prepared).toBe(false);
  });

  it('refuses to prepare a statement the family does not declare (a typo would silently cost the saving)', () => {
    expect(() =>
      defineQueries({
        owner: 'query-spec-unknown',
        tables: ['things'],
        platform: { claimThings: 'SELECT 1' },
        prepared: ['claimThing' as 'claimThings'],
      }),
    ).toThrow('query family query-spec-unknown prepares undeclared statements: claimThing');
  });
});
