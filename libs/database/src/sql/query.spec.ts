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

describe('defineQueries: read routing', () => {
  it('routes the listed statements to the replica or fail-over and the others to the primary', () => {
    const Q = defineQueries({
      owner: 'query-spec-routes',
      tables: ['things'],
      tenant: { listThings: 'SELECT id FROM things WHERE account_id = $1', updateThing: 'UPDATE things SET x = 1 WHERE account_id = $1' },
      platform: { thingByKey: 'SELECT id FROM things WHERE key = $1' },
      replica: ['listThings'],
      failover: ['thingByKey'],
    });
    expect([Q.listThings.route, Q.thingByKey.route, Q.updateThing.route]).toEqual(['replica', 'failover', 'primary']);
  });

  it('refuses to send a statement that writes or locks to a replica (it is read-only)', () => {
    for (const [name, text] of [
      ['insertThing', 'WITH x AS (INSERT INTO things VALUES (1) RETURNING id) SELECT id FROM x'],
      ['lockThing', 'SELECT id FROM things WHERE id = $1 FOR UPDATE'],
      ['lockKey', 'SELECT pg_advisory_xact_lock($1)'],
    ]) {
      expect(() => defineQueries({ owner: `query-spec-${name}`, tables: ['things'], platform: { [name]: text }, replica: [name] })).toThrow(
        `query query-spec-${name}.${name} writes or locks: it cannot run on a read replica`,
      );
    }
  });

  it('refuses to route an undeclared statement', () => {
    expect(() => defineQueries({ owner: 'query-spec-route-typo', tables: ['things'], platform: { listThings: 'SELECT 1' }, replica: ['listThing' as 'listThings'] })).toThrow(
      'query family query-spec-route-typo routes undeclared statements: listThing',
    );
  });
});
