import { claimWindow } from './delivery-queue';

describe('claimWindow', () => {
  it('visits at least 64 endpoints, or the limit if larger, and doubles after each short claim up to 64 times', () => {
    expect(claimWindow(8)).toBe(64);
    expect(claimWindow(128)).toBe(128);
    expect(claimWindow(8, 1)).toBe(128);
    expect(claimWindow(128, 2)).toBe(512);
    expect(claimWindow(8, 6)).toBe(4096);
    expect(claimWindow(8, 20)).toBe(4096);
  });
});
