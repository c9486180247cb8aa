import { classifyStatus, MAX_RETRY_AFTER_SECONDS, parseRetryAfter, retryDelayMs } from './retry-policy';

const SCHEDULE = [10, 60, 300, 1800, 7200, 21600];

describe('retry policy', () => {
  it.each([
    [200, 'succeeded'],
    [204, 'succeeded'],
    [299, 'succeeded'],
    [301, 'failed'],
    [302, 'failed'],
    [400, 'failed'],
    [404, 'failed'],
    [410, 'failed'],
    [429, 'retry'],
    [500, 'retry'],
    [503, 'retry'],
    [599, 'retry'],
  ])('classifies HTTP %i as %s', (status, outcome) => {
    expect(classifyStatus(status)).toBe(outcome);
  });

  it('draws each delay uniformly between zero and the scheduled ceiling (full jitter)', () => {
    SCHEDULE.forEach((ceiling, index) => {
      expect(retryDelayMs(SCHEDULE, index + 1, null, () => 0)).toBe(0);
      expect(retryDelayMs(SCHEDULE, index + 1, null, () => 0.5)).toBe(ceiling * 500);
      expect(retryDelayMs(SCHEDULE, index + 1, null, () => 0.999999)).toBeLessThan(ceiling * 1000);
    });
  });

  it('waits at least Retry-After, capped', () => {
    expect(retryDelayMs(SCHEDULE, 1, 30, () => 0)).toBe(30_000);
    expect(retryDelayMs(SCHEDULE, 1, 2, () => 0.9)).toBe(9000);
    expect(retryDelayMs([0, 0, 0, 0, 0, 0], 3, 1, () => 0.5)).toBe(1000);
    expect(retryDelayMs(SCHEDULE, 1, 10 ** 9, () => 0)).toBe(MAX_RETRY_AFTER_SECONDS * 1000);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('-5', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
