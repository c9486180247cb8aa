import { leftBehindBy } from './claim-left-behind';

describe('leftBehindBy', () => {
  const delivery = (endpoint_id: string, account_id: string) => ({ endpoint_id, account_id });

  it('marks the keys the claim stopped at their hold, counting what the process held when it asked', () => {
    const left = leftBehindBy(
      [delivery('e1', 'a1'), delivery('e1', 'a1'), delivery('e2', 'a1')],
      false,
      { endpoints: new Map([['e1', 2], ['e3', 4]]), accounts: new Map([['a1', 6], ['a2', 1]]) },
      4,
      9,
    );
    expect(left).toEqual({ all: false, endpoints: new Set(['e1', 'e3']), accounts: new Set(['a1']) });
  });

  it('marks nothing when every key stayed below its hold: the claim took every due delivery of them', () => {
    expect(leftBehindBy([delivery('e1', 'a1')], false, { endpoints: new Map(), accounts: new Map() }, 4, 8)).toEqual({
      all: false,
      endpoints: new Set(),
      accounts: new Set(),
    });
  });

  it('says all may be left when the claim took as many as it was allowed', () => {
    expect(leftBehindBy([delivery('e1', 'a1')], true, { endpoints: new Map(), accounts: new Map() }, 4, 8).all).toBe(true);
  });
});
